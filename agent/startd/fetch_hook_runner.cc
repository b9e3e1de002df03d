// Runs hook programs (fetch work, reply fetch, evict claim) and the backfill client as libuv
// child processes in their own sessions: stdin written, stdout read with a cap, a time limit.
#include "agent/startd/fetch_hook_runner.h"

#include <signal.h>

#include <algorithm>

#include "agent/core/log.h"

namespace kite::agent {

namespace {

uv_handle_t* H(void* h) {
  return reinterpret_cast<uv_handle_t*>(h);
}

void close_once(uv_handle_t* h, uv_close_cb cb) {
  if (!uv_is_closing(h)) uv_close(h, cb);
}

}  // namespace

void HookProcess::kill() {
  if (!exited_ && proc_.pid > 0) ::kill(-proc_.pid, SIGKILL);
}

void HookProcess::signal(int sig) {
  if (!exited_ && proc_.pid > 0) ::kill(proc_.pid, sig);
}

void HookProcess::on_closed(uv_handle_t* h) {
  static_cast<HookProcess*>(h->data)->closed();
}

void HookProcess::closed() {
  if (--open_ > 0) return;
  auto& live = runner_->live_;
  live.erase(std::remove(live.begin(), live.end(), this), live.end());
  if (done_) done_(result_);
  delete this;
}

HookProcess* HookRunner::start(HookOptions opts, std::function<void(const HookResult&)> done) {
  auto* p = new HookProcess();
  p->runner_ = this;
  p->opts_ = std::move(opts);
  p->done_ = std::move(done);
  live_.push_back(p);
  uv_timer_init(loop_, &p->timer_);
  uv_pipe_init(loop_, &p->in_, 0);
  uv_pipe_init(loop_, &p->out_, 0);
  p->proc_.data = p->timer_.data = p->in_.data = p->out_.data = p;
  p->open_ = 3;  // the process handle counts once uv_spawn has initialized it

  std::vector<char*> argv;
  for (std::string& a : p->opts_.argv) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_IGNORE;
  if (!p->opts_.input.empty()) {
    stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
    stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&p->in_);
  }
  stdio[1].flags = UV_IGNORE;
  if (p->opts_.capture) {
    stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
    stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&p->out_);
  }
  stdio[2].flags = UV_IGNORE;
  std::vector<char*> envp;
  for (std::string& e : p->opts_.env) envp.push_back(&e[0]);
  envp.push_back(nullptr);
  uv_process_options_t po{};
  po.file = !p->opts_.file.empty() ? p->opts_.file.c_str() : argv[0] ? argv[0] : "";
  po.args = argv.data();
  po.env = p->opts_.env.empty() ? nullptr : envp.data();
  po.cwd = p->opts_.cwd.empty() ? nullptr : p->opts_.cwd.c_str();
  po.stdio = stdio;
  po.stdio_count = 3;
  po.flags = UV_PROCESS_DETACHED;  // its own session: a kill reaches what it started
  if (p->opts_.set_user) {
    po.flags |= UV_PROCESS_SETUID | UV_PROCESS_SETGID;
    po.uid = p->opts_.uid;
    po.gid = p->opts_.gid;
  }
  po.exit_cb = [](uv_process_t* h, int64_t status, int sig) {
    auto* self = static_cast<HookProcess*>(h->data);
    self->exited_ = true;
    self->result_.status = status;
    self->result_.term_signal = sig;
    // Helpers it left behind would hold the pipe open: the session goes with it.
    if (h->pid > 0) ::kill(-h->pid, SIGKILL);
    uv_timer_stop(&self->timer_);
    close_once(H(&self->timer_), &HookProcess::on_closed);
    close_once(H(h), &HookProcess::on_closed);
  };
  if (p->opts_.argv.empty()) {
    p->result_.spawn_error = "no program";
    p->exited_ = true;
    for (uv_handle_t* h : {H(&p->timer_), H(&p->in_), H(&p->out_)})
      close_once(h, &HookProcess::on_closed);
    return p;
  }
  int rc = uv_spawn(loop_, &p->proc_, &po);  // initializes the handle, also when it fails
  p->open_++;
  if (rc != 0) {
    p->result_.spawn_error = uv_strerror(rc);
    p->exited_ = true;
    for (uv_handle_t* h : {H(&p->proc_), H(&p->timer_), H(&p->in_), H(&p->out_)})
      close_once(h, &HookProcess::on_closed);
    return p;
  }
  p->result_.spawned = true;
  if (!p->opts_.input.empty()) {
    uv_buf_t buf = uv_buf_init(&p->opts_.input[0], static_cast<unsigned>(p->opts_.input.size()));
    int wr = uv_write(&p->write_, reinterpret_cast<uv_stream_t*>(&p->in_), &buf, 1,
                      [](uv_write_t* w, int) {
                        // Written, or the hook did not read it (EPIPE): either way it is done.
                        close_once(H(w->handle), &HookProcess::on_closed);
                      });
    if (wr != 0) close_once(H(&p->in_), &HookProcess::on_closed);
  } else {
    close_once(H(&p->in_), &HookProcess::on_closed);
  }
  if (p->opts_.capture) {
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&p->out_),
        [](uv_handle_t*, size_t, uv_buf_t* buf) {
          static char chunk[8192];  // one read at a time on the single loop thread
          *buf = uv_buf_init(chunk, sizeof chunk);
        },
        [](uv_stream_t* s, ssize_t n, const uv_buf_t* b) {
          auto* self = static_cast<HookProcess*>(s->data);
          if (n > 0 && self->opts_.on_output) {
            self->opts_.on_output(b->base, static_cast<size_t>(n));
          } else if (n > 0 && !self->result_.overflow) {
            if (self->result_.output.size() + static_cast<size_t>(n) > self->opts_.max_output) {
              self->result_.overflow = true;
              self->result_.output.clear();
              self->kill();
            } else {
              self->result_.output.append(b->base, static_cast<size_t>(n));
            }
          }
          if (n < 0 || self->result_.overflow) close_once(H(s), &HookProcess::on_closed);
        });
  } else {
    close_once(H(&p->out_), &HookProcess::on_closed);
  }
  if (p->opts_.timeout_ms > 0) {
    uv_timer_start(
        &p->timer_,
        [](uv_timer_t* t) {
          auto* self = static_cast<HookProcess*>(t->data);
          self->result_.timed_out = true;
          self->kill();
        },
        p->opts_.timeout_ms, 0);
  }
  return p;
}

void HookRunner::close() {
  std::vector<HookProcess*> live = live_;
  for (HookProcess* p : live) {
    p->kill();
    for (uv_handle_t* h : {H(&p->proc_), H(&p->timer_), H(&p->in_), H(&p->out_)}) {
      if (h->loop) close_once(h, &HookProcess::on_closed);  // (a process never spawned: no loop)
    }
  }
}

}  // namespace kite::agent
