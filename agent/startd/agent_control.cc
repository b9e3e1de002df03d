// The local control socket: `kite status|vacate|drain|off|reconfig|set|run --local` talk to
// the agent here. Anyone may read; changing things needs root, the agent's own uid, or
// membership in AGENT_ADMIN_GROUP (checked from the kernel's record of the peer). The socket
// is bounded: AGENT_MAX_CONNECTIONS clients at once, AGENT_MAX_QUEUED_OUTPUT bytes of replies
// queued for a client that does not read, AGENT_CLIENT_IDLE_TIMEOUT between requests,
// AGENT_MAX_REQUEST_SIZE bytes in one request.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "agent/core/accounts.h"
#include "agent/core/log.h"
#include "agent/core/sock.h"
#include "agent/startd/agent.h"
#include "policy/classad/json.h"

namespace kite::agent {
namespace {}  // namespace

bool Agent::listen_control(std::string* err) {
  uv_pipe_init(&loop_, &control_, 0);
  control_.data = this;
  ::unlink(ac_.socket.c_str());
  int rc = uv_pipe_bind(&control_, ac_.socket.c_str());
  if (rc == 0)
    rc = uv_listen(reinterpret_cast<uv_stream_t*>(&control_), 64,
                   [](uv_stream_t* server, int status) {
                     if (status < 0) return;
                     static_cast<Agent*>(server->loop->data)->accept_control(server);
                   });
  if (rc != 0) {
    *err = "cannot listen on " + ac_.socket + ": " + uv_strerror(rc);
    return false;
  }
  // Everyone may connect (status is public); commands that change things check the peer.
  ::chmod(ac_.socket.c_str(), 0666);
  control_open_ = true;
  return true;
}

void Agent::accept_control(uv_stream_t* server) {
  // Accepted even over the cap: a pending connection left in the backlog would wake the loop
  // again and again. The refused client hears why.
  core::Conn* c = core::Conn::accept(server, this);
  if (!c) return;
  if (clients_.size() >= static_cast<size_t>(ac_.max_connections)) {
    if (refused_clients_++ % 100 == 0)
      KLOG_WARN(
          "control socket: %zu clients connected (AGENT_MAX_CONNECTIONS); refusing more "
          "(%llu refused so far)",
          clients_.size(), static_cast<unsigned long long>(refused_clients_));
    c->send(reply_error("the agent has too many clients (AGENT_MAX_CONNECTIONS = " +
                        std::to_string(ac_.max_connections) + "); try again later"));
    c->close_quietly();
    return;
  }
  c->set_max_queued(static_cast<size_t>(ac_.max_queued_output));
  c->set_max_frame(static_cast<size_t>(ac_.max_request));
  c->set_idle_timeout(static_cast<uint64_t>(ac_.client_idle_timeout) * 1000);
  clients_.push_back(c);
}

bool Agent::authorized_writer(core::Conn* c) {
  uid_t uid = 0;
  gid_t gid = 0;
  if (!core::peer_credentials(c->fd(), &uid, &gid, nullptr)) return false;
  if (uid == 0 || uid == ::geteuid()) return true;
  gid_t admin;
  if (ac_.admin_group.empty() || !core::group_gid(ac_.admin_group, &admin)) return false;
  if (gid == admin) return true;
  std::vector<gid_t> groups;
  std::string err;
  if (!core::peer_groups(c->fd(), &groups, &err)) {
    KLOG_WARN("control socket: %s; only the peer's primary group counts", err.c_str());
    return false;
  }
  return std::find(groups.begin(), groups.end(), admin) != groups.end();
}

bool Agent::stamp_owner(core::Conn* c, classad::ClassAd* job, std::string* owner,
                        std::string* err) {
  uid_t uid = 0;
  if (!core::peer_credentials(c->fd(), &uid, nullptr, nullptr)) {
    *err = "cannot tell who is asking (no peer credentials on the socket)";
    return false;
  }
  core::Account acct;
  *owner = core::account_by_uid(uid, &acct) ? acct.name : "uid" + std::to_string(uid);
  std::string claimed;
  if (job->evaluate_string("Owner", claimed) && claimed != *owner)
    KLOG_WARN("run: the client's Owner \"%s\" replaced by \"%s\" (uid %u, the peer's account)",
              claimed.c_str(), owner->c_str(), static_cast<unsigned>(uid));
  job->insert_value("Owner", classad::Value::string(*owner));
  return true;
}

void Agent::on_frame(core::Conn* c, core::Json& msg) {
  if (c->user) {
    starter_frame(static_cast<StarterRec*>(c->user), msg);
  } else {
    control_frame(c, msg);
  }
}

void Agent::on_closed(core::Conn* c, const std::string& why) {
  if (c->user) {
    StarterRec* s = static_cast<StarterRec*>(c->user);
    s->conn = nullptr;
    if (s->exited) {
      forget_starter(s);  // released: it cleaned up and went away
      return;
    }
    KLOG_WARN("%s: lost the starter's connection (%s)", s->slot.c_str(), why.c_str());
    if (s->pid > 0 && ::kill(s->pid, 0) != 0 && errno == ESRCH) {
      s->gone = true;
      starter_gone(s, "the starter died before reporting an exit");
      return;
    }
    starter_connect(s);
    return;
  }
  if (why != "peer closed") KLOG_INFO("control socket: client closed: %s", why.c_str());
  clients_.erase(std::remove(clients_.begin(), clients_.end(), c), clients_.end());
  for (auto it = runs_.begin(); it != runs_.end();) {
    RunRec* r = it->second.get();
    if (r->client != c) {
      ++it;
      continue;
    }
    r->client = nullptr;
    if (r->state == RunRec::State::kQueued) {
      KLOG_INFO("run %lld: client went away before it started; dropped",
                static_cast<long long>(r->id));
      it = runs_.erase(it);
      continue;
    }
    if (r->state == RunRec::State::kRunning && !r->slot.empty()) {
      KLOG_INFO("run %lld: client went away; vacating %s", static_cast<long long>(r->id),
                r->slot.c_str());
      startd::Event ev;
      ev.kind = startd::EventKind::kVacate;
      ev.slot = r->slot;
      std::string err;
      handle(ev, &err);
    }
    ++it;
  }
}

std::vector<classad::AdPtr> Agent::slot_ads() {
  std::vector<classad::AdPtr> out;
  for (const startd::SlotView& v : sd_->slots()) {
    if (!v.ad) continue;
    classad::AdPtr ad(v.ad->copy());
    if (StarterRec* s = starter_of(v.name)) {
      ad->insert_value("StarterPid", classad::Value::integer(s->pid));
      std::string err;
      core::Json u = core::json_parse(s->last_usage, &err);
      for (const char* k : {"RemoteUserCpu", "RemoteSysCpu", "ResidentSetSize", "MemoryUsage",
                            "NumPids", "ImageSize"}) {
        if (u && u.has(k)) ad->insert_value(k, classad::Value::real(u.real(k)));
      }
    }
    out.push_back(std::move(ad));
  }
  return out;
}

std::map<std::string, std::string> Agent::current_ads() {
  std::map<std::string, std::string> out;
  for (const classad::AdPtr& ad : slot_ads()) {
    std::string name;
    if (ad->evaluate_string("Name", name)) out[name] = classad::classad_to_json(*ad, false);
  }
  return out;
}

core::Json Agent::status_reply(bool long_form) {
  core::Json m = core::Json::message("status");
  cJSON* ads = cJSON_CreateArray();
  for (const classad::AdPtr& ad : slot_ads()) {
    cJSON_AddItemToArray(ads, cJSON_CreateString(classad::classad_to_json(*ad, false).c_str()));
  }
  m.set_json("ads", core::Json(ads));
  m.set_bool("long", long_form);
  return m;
}

void Agent::control_frame(core::Conn* c, core::Json& msg) {
  std::string type = msg.type();
  if (type == "status") {
    c->send(status_reply(msg.flag("long")));
    return;
  }
  if (type != "run" && !admin_command_type(type)) {
    c->send(reply_error("unknown command '" + type + "'"));
    return;
  }
  if (!authorized_writer(c)) {
    c->send(reply_error(type + ": permission denied (needs root or AGENT_ADMIN_GROUP)"));
    return;
  }
  if (type == "run") {
    c->set_idle_timeout(0);  // the client now waits quietly for its job, however long it runs
    run_request(c, msg);
    return;
  }
  std::optional<startd::ShutdownMode> off;
  c->send(admin_command(msg, {"ADMINISTRATOR"}, &off));
  if (off) begin_shutdown(*off);
}

}  // namespace kite::agent
