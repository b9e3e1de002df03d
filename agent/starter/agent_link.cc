// The starter's side of the agent link: the Unix socket DIR/sock (any number of agent
// connections, root or our own uid only), hello first on each, frames in and out, and
// state.json, which is always what the next hello will say.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "agent/core/files.h"
#include "agent/core/log.h"
#include "agent/core/sock.h"
#include "agent/starter/protocol.h"
#include "agent/starter/starter_impl.h"

namespace kite::starter {
namespace {

constexpr int kMaxBadFrames = 3;
constexpr size_t kMaxQueuedBytes = 4u << 20;  // an agent that stops reading is dropped

struct WriteReq {
  uv_write_t req;
  std::string data;
};

void alloc_buf(uv_handle_t*, size_t, uv_buf_t* buf) {
  static char chunk[16384];
  *buf = uv_buf_init(chunk, sizeof chunk);
}

}  // namespace

const char* Starter::phase_name() const {
  switch (phase_) {
    case Phase::kPreparing: return "preparing";
    case Phase::kSuspended: return "suspended";
    case Phase::kExited: return "exited";
    default: return "running";
  }
}

core::Json Starter::hello() const {
  core::Json h = core::Json::message("hello");
  h.set("slot", spec_.slot).set("claim_id", spec_.claim_id);
  h.set("starter_pid", static_cast<int64_t>(getpid())).set("state", phase_name());
  h.set("job_pid", static_cast<int64_t>(job_pid_ > 0 ? job_pid_ : 0));
  h.set("start_time", start_time_).set("sandbox", sandbox_);
  if (phase_ == Phase::kExited && exit_) {
    h.set_json("exit", core::Json(cJSON_Duplicate(exit_.get(), true)));
  }
  return h;
}

void Starter::save_state() {
  // A power cut ends every job on the node; what must survive is a crash of the agent or of
  // this starter, and a rename in the page cache gives that without an fsync per change.
  std::string err;
  if (!core::write_file_atomic(dir_ + "/" + kStateFile, hello().dump(), 0644, &err,
                               core::Durability::kProcessCrash)) {
    KLOG_ERROR("state file: %s", err.c_str());
  }
}

bool Starter::listen(std::string* err) {
  uv_pipe_init(&loop_, &server_, 0);
  server_.data = this;
  int fd = core::unix_listen(dir_ + "/" + kSocketFile, 0600, err);
  if (fd < 0) return false;
  int r = uv_pipe_open(&server_, fd);
  if (r == 0) {
    r = uv_listen(reinterpret_cast<uv_stream_t*>(&server_), 16, [](uv_stream_t* s, int status) {
      if (status == 0) static_cast<Starter*>(s->data)->on_connection();
    });
  }
  if (r != 0) {
    *err = "cannot listen on " + dir_ + "/" + kSocketFile + ": " + uv_strerror(r);
    return false;
  }
  return true;
}

void Starter::on_connection() {
  AgentConn* c = new AgentConn();
  c->owner = this;
  uv_pipe_init(&loop_, &c->pipe, 0);
  c->pipe.data = c;
  auto drop = [](AgentConn* conn) {
    uv_close(reinterpret_cast<uv_handle_t*>(&conn->pipe),
             [](uv_handle_t* h) { delete static_cast<AgentConn*>(h->data); });
  };
  if (uv_accept(reinterpret_cast<uv_stream_t*>(&server_),
                reinterpret_cast<uv_stream_t*>(&c->pipe)) != 0) {
    drop(c);
    return;
  }
  // Only root (the agent) or our own uid may steer the job; a refused peer never counts as
  // an agent (the lease keeps running).
  uv_os_fd_t fd;
  uid_t uid = static_cast<uid_t>(-1);
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&c->pipe), &fd) != 0 ||
      !core::peer_credentials(fd, &uid, nullptr, nullptr) || (uid != 0 && uid != geteuid())) {
    KLOG_WARN("refused a connection from uid %d", static_cast<int>(uid));
    drop(c);
    return;
  }
  if (stopping_) {
    drop(c);
    return;
  }
  conns_.push_back(c);
  KLOG_INFO("agent connected (%zu connection(s))", conns_.size());
  arm_lease_timer();
  send(c, hello());
  uv_read_start(reinterpret_cast<uv_stream_t*>(&c->pipe), alloc_buf,
                [](uv_stream_t* s, ssize_t n, const uv_buf_t* b) {
                  AgentConn* conn = static_cast<AgentConn*>(s->data);
                  conn->owner->on_read(conn, n, b);
                });
}

void Starter::on_read(AgentConn* c, ssize_t n, const uv_buf_t* buf) {
  if (n < 0) {
    close_conn(c);
    return;
  }
  c->reader.feed(buf->base, static_cast<size_t>(n));
  for (;;) {
    core::Json msg;
    std::string err;
    core::FrameReader::Result r = c->reader.next(&msg, &err);
    if (r == core::FrameReader::Result::kNeedMore) return;
    if (r == core::FrameReader::Result::kError) {
      reply_error(c, err);
      if (++c->bad_frames >= kMaxBadFrames || c->reader.broken()) {
        KLOG_WARN("closing an agent connection after bad frames (%s)", err.c_str());
        close_conn(c);
        return;
      }
      continue;
    }
    on_frame(c, msg);
    if (c->closing || stopping_) return;
  }
}

void Starter::on_frame(AgentConn* c, const core::Json& msg) {
  std::string type = msg.type();
  KLOG_DEBUG("frame %s", type.c_str());
  if (type == "suspend") {
    suspend(c);
  } else if (type == "continue") {
    resume(c);
  } else if (type == "soft-kill") {
    int64_t sig = msg.num("signal", 0);
    if (msg.has("signal") && (sig <= 0 || sig >= NSIG)) {
      reply_error(c, "soft-kill: bad signal " + std::to_string(sig));
      return;
    }
    soft_kill(c, static_cast<int>(sig));
  } else if (type == "hard-kill") {
    hard_kill("the agent asked for a hard kill");
  } else if (type == "release") {
    release(c);
  } else if (type == "status") {
    send(c, hello());
  } else {
    reply_error(c, "unknown frame type '" + type + "'");
    if (++c->bad_frames >= kMaxBadFrames) close_conn(c);
  }
}

void Starter::reply_error(AgentConn* c, const std::string& message) {
  core::Json e = core::Json::message("error");
  e.set("message", message);
  send(c, e);
}

void Starter::send(AgentConn* c, const core::Json& msg) {
  if (c->closing) return;
  if (uv_stream_get_write_queue_size(reinterpret_cast<uv_stream_t*>(&c->pipe)) > kMaxQueuedBytes) {
    KLOG_WARN("agent connection not reading: dropped");
    close_conn(c);
    return;
  }
  WriteReq* w = new WriteReq();
  w->data = core::frame_encode(msg);
  w->req.data = w;
  uv_buf_t b = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  int r = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&c->pipe), &b, 1,
                   [](uv_write_t* req, int) { delete static_cast<WriteReq*>(req->data); });
  if (r != 0) {
    delete w;
    close_conn(c);
  }
}

void Starter::broadcast(const core::Json& msg) {
  // send() may close (and unlist) a connection: iterate over a copy.
  std::vector<AgentConn*> all = conns_;
  for (AgentConn* c : all) send(c, msg);
}

void Starter::close_conn(AgentConn* c) {
  if (c->closing) return;
  c->closing = true;
  conns_.erase(std::remove(conns_.begin(), conns_.end(), c), conns_.end());
  uv_close(reinterpret_cast<uv_handle_t*>(&c->pipe),
           [](uv_handle_t* h) { delete static_cast<AgentConn*>(h->data); });
  if (conns_.empty() && !stopping_) {
    KLOG_INFO("no agent connected");
    disconnected_since_ms_ = uv_now(&loop_);
    arm_lease_timer();
  }
}

}  // namespace kite::starter
