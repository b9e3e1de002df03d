// Running hooks with uv_spawn and judging their results.
#include "agent/starter/hooks.h"

#include <signal.h>

#include <algorithm>
#include <cstdint>

#include "policy/classad/parser.h"

namespace kite::starter {
namespace {

constexpr size_t kMaxHookOutput = 1u << 20;
constexpr size_t kMaxHookErr = 4096;
constexpr uint64_t kExitGraceMs = 200;  // after exit, how long a grandchild may hold stdout

void on_alloc(uv_handle_t*, size_t, uv_buf_t* buf) {
  static char chunk[16384];  // single-threaded loop: one read at a time
  *buf = uv_buf_init(chunk, sizeof chunk);
}

}  // namespace

HookRun* HookRun::start(uv_loop_t* loop, const HookSpec& spec, Done done) {
  HookRun* h = new HookRun();
  h->done_ = std::move(done);
  h->result_.name = spec.name;
  h->result_.path = spec.path;
  h->input_ = spec.input;
  for (uv_handle_t* p :
       {reinterpret_cast<uv_handle_t*>(&h->in_), reinterpret_cast<uv_handle_t*>(&h->out_),
        reinterpret_cast<uv_handle_t*>(&h->err_)}) {
    uv_pipe_init(loop, reinterpret_cast<uv_pipe_t*>(p), 0);
    p->data = h;
    ++h->open_handles_;
  }
  uv_timer_init(loop, &h->timer_);
  h->timer_.data = h;
  ++h->open_handles_;

  std::vector<char*> argv, envp;
  argv.push_back(const_cast<char*>(spec.path.c_str()));
  for (const std::string& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  uv_stdio_container_t stdio[3];
  stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
  stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&h->in_);
  stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&h->out_);
  stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(&h->err_);
  uv_process_options_t opt{};
  opt.file = spec.path.c_str();
  opt.args = argv.data();
  opt.env = envp.data();
  opt.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  opt.exit_cb = &HookRun::on_exit;
  opt.stdio_count = 3;
  opt.stdio = stdio;
  // Its own session: a timeout kills the hook and everything it started.
  opt.flags = UV_PROCESS_DETACHED;
  if (spec.set_user) {
    opt.flags |= UV_PROCESS_SETUID | UV_PROCESS_SETGID;
    opt.uid = spec.uid;
    opt.gid = spec.gid;
  }
  h->proc_.data = h;
  int r = uv_spawn(loop, &h->proc_, &opt);
  if (r != 0) {
    h->result_.spawn_error = uv_strerror(r);
    // A failed uv_spawn still initialised the handle; it must be closed like the rest.
    ++h->open_handles_;
    h->exited_ = true;
    for (uv_handle_t* p :
         {reinterpret_cast<uv_handle_t*>(&h->proc_), reinterpret_cast<uv_handle_t*>(&h->in_),
          reinterpret_cast<uv_handle_t*>(&h->out_), reinterpret_cast<uv_handle_t*>(&h->err_),
          reinterpret_cast<uv_handle_t*>(&h->timer_)}) {
      h->close_handle(p);
    }
    return h;
  }
  h->spawned_ = true;
  h->result_.started = true;
  ++h->open_handles_;  // the process handle

  uv_buf_t buf = uv_buf_init(h->input_.data(), static_cast<unsigned>(h->input_.size()));
  h->write_req_.data = h;
  // Stdin closes after the ad is written (or the hook stopped reading).
  if (uv_write(&h->write_req_, reinterpret_cast<uv_stream_t*>(&h->in_), &buf, 1,
               [](uv_write_t* w, int) {
                 HookRun* self = static_cast<HookRun*>(w->data);
                 self->close_handle(reinterpret_cast<uv_handle_t*>(&self->in_));
               }) != 0) {
    h->close_handle(reinterpret_cast<uv_handle_t*>(&h->in_));
  }
  uv_read_start(reinterpret_cast<uv_stream_t*>(&h->out_), on_alloc,
                [](uv_stream_t* s, ssize_t n, const uv_buf_t* b) {
                  HookRun* self = static_cast<HookRun*>(s->data);
                  if (n < 0) {
                    self->close_handle(reinterpret_cast<uv_handle_t*>(s));
                    return;
                  }
                  std::string& out = self->result_.out;
                  if (out.size() + static_cast<size_t>(n) > kMaxHookOutput) {
                    self->result_.out_too_long = true;
                    self->kill();
                    self->close_handle(reinterpret_cast<uv_handle_t*>(s));
                    return;
                  }
                  out.append(b->base, static_cast<size_t>(n));
                });
  uv_read_start(reinterpret_cast<uv_stream_t*>(&h->err_), on_alloc,
                [](uv_stream_t* s, ssize_t n, const uv_buf_t* b) {
                  HookRun* self = static_cast<HookRun*>(s->data);
                  if (n < 0) {
                    self->close_handle(reinterpret_cast<uv_handle_t*>(s));
                    return;
                  }
                  std::string& err = self->result_.err;
                  size_t room = kMaxHookErr > err.size() ? kMaxHookErr - err.size() : 0;
                  err.append(b->base, std::min(room, static_cast<size_t>(n)));
                });
  uv_timer_start(&h->timer_, &HookRun::on_timer, static_cast<uint64_t>(spec.timeout_s) * 1000, 0);
  return h;
}

void HookRun::kill() {
  if (spawned_ && !exited_) ::kill(-proc_.pid, SIGKILL);
}

void HookRun::on_exit(uv_process_t* p, int64_t status, int sig) {
  HookRun* self = static_cast<HookRun*>(p->data);
  self->exited_ = true;
  self->result_.exit_status = status;
  self->result_.term_signal = sig;
  self->close_handle(reinterpret_cast<uv_handle_t*>(p));
  // Output still buffered in the pipe arrives right away; a grandchild holding the pipe open
  // gets a short grace, then the hook's session is killed and the pipes closed.
  uv_timer_stop(&self->timer_);
  uv_timer_start(&self->timer_, &HookRun::on_timer, kExitGraceMs, 0);
  self->finish_if_done();
}

void HookRun::on_timer(uv_timer_t* t) {
  HookRun* self = static_cast<HookRun*>(t->data);
  if (!self->exited_) {
    self->result_.timed_out = true;
    self->kill();
    return;  // on_exit follows
  }
  ::kill(-self->proc_.pid, SIGKILL);
  self->close_handle(reinterpret_cast<uv_handle_t*>(&self->out_));
  self->close_handle(reinterpret_cast<uv_handle_t*>(&self->err_));
  self->close_handle(reinterpret_cast<uv_handle_t*>(&self->in_));
}

void HookRun::close_handle(uv_handle_t* h) {
  if (uv_is_closing(h)) return;
  uv_close(h, &HookRun::on_closed);
}

void HookRun::on_closed(uv_handle_t* h) {
  HookRun* self = static_cast<HookRun*>(h->data);
  --self->open_handles_;
  self->finish_if_done();
}

void HookRun::finish_if_done() {
  // Done once the process is gone and its output pipes are closed: then the timer and stdin
  // close too, and when the last close callback has run the result goes out.
  bool pipes_open = !uv_is_closing(reinterpret_cast<uv_handle_t*>(&out_)) ||
                    !uv_is_closing(reinterpret_cast<uv_handle_t*>(&err_));
  if (!exited_ || pipes_open) return;
  if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&timer_))) {
    close_handle(reinterpret_cast<uv_handle_t*>(&in_));
    close_handle(reinterpret_cast<uv_handle_t*>(&timer_));
    return;
  }
  if (open_handles_ > 0) return;
  Done done = std::move(done_);
  HookResult result = std::move(result_);
  delete this;
  if (done) done(result);
}

HookVerdict hook_judge_prepare(const HookResult& r) {
  auto hold = [](int sub, std::string msg) {
    HookVerdict v;
    v.kind = HookVerdict::kHold;
    v.code = 19;  // HTCONDOR: HookPrepareJobFailure
    v.subcode = sub;
    v.message = std::move(msg);
    return v;
  };
  if (!r.started) return hold(0, r.label() + " could not be executed: " + r.spawn_error);
  if (r.timed_out) return hold(-SIGKILL, r.label() + " did not finish in time and was killed");
  if (r.out_too_long) return hold(0, r.label() + " printed more than 1 MiB");
  if (r.term_signal != 0) {
    return hold(-r.term_signal,
                r.label() + " was killed by signal " + std::to_string(r.term_signal));
  }
  classad::ParseError perr;
  classad::AdPtr ad = classad::parse_classad_old(r.out, &perr);
  if (!ad) return hold(0, r.label() + " printed output that is not a ClassAd: " + perr.to_string());
  int64_t status = r.exit_status;
  int64_t code;
  if (ad->evaluate_int("HookStatusCode", code) && code >= 0) status = code;
  std::string message;
  if (!ad->evaluate_string("HookStatusMessage", message) || message.empty()) {
    message = r.label() + " exited with status " + std::to_string(status);
  }
  ad->remove("HookStatusCode");
  ad->remove("HookStatusMessage");
  if (status > 0 && status < 300) return hold(static_cast<int>(status), message);
  HookVerdict v;
  if (status == 0) {
    v.updates = std::move(ad);
    return v;
  }
  v.kind = HookVerdict::kRequeue;
  v.subcode = static_cast<int>(status > INT32_MAX ? INT32_MAX : status);
  v.message = message;
  return v;
}

}  // namespace kite::starter
