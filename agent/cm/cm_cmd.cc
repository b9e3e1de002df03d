// `kite cm [-c CONFIG] [--foreground]`: the central manager daemon (for now its collector),
// configured from the HTCondor-syntax configuration: COLLECTOR_HOST, KITE_CA/CERT/KEY/CRL,
// ALLOW_*/DENY_*, CLASSAD_LIFETIME and the absent/offline settings.
#include <csignal>
#include <cstdio>
#include <cstring>

#include "agent/cli/commands.h"
#include "agent/cm/cm_service.h"
#include "agent/cm/collector_server.h"
#include "agent/core/files.h"
#include "agent/core/log.h"
#include "agent/net/tls_config.h"
#include "agent/startd/agent_config.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"
#if KITE_HAS_JOB_STORE
#include "agent/queue/job_store.h"
#endif

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(stderr,
               "usage: kite cm [-c CONFIG] [--foreground]\n"
               "  -c CONFIG      configuration file (default $KITE_CONFIG, else "
               "/etc/kite/kite.conf and its config.d)\n"
               "  --foreground   stay attached to the terminal and log to stderr\n");
  return 2;
}

// Who may do what when the configuration does not say: any pool certificate may read, user
// certificates write (submit, and act on their own jobs), agents and central managers
// advertise, admin certificates administer.
std::string authz_get(void* ctx, const char* name) {
  const auto* cfg = static_cast<const config::Config*>(ctx);
  std::string v;
  if (cfg->get(name, &v)) return v;
  if (std::strcmp(name, "ALLOW_READ") == 0) return "*";
  if (std::strcmp(name, "ALLOW_DAEMON") == 0) return "agent/*, cm/*";
  if (std::strcmp(name, "ALLOW_ADMINISTRATOR") == 0) return "admin/*";
  if (std::strcmp(name, "ALLOW_WRITE") == 0) return "user/*";
  return "";
}

bool read_settings(const config::Config& cfg, cm::CollectorOptions* o, std::string* queue_db,
                   std::string* accountant_db, std::string* ticket_keys, std::string* err) {
  std::string v;
  if (cfg.get("COLLECTOR_HOST", &v) && !v.empty()) {
    std::string host;
    if (!net::parse_host_port(v, &host, &o->port, err)) {
      *err = "COLLECTOR_HOST: " + *err;
      return false;
    }
  }
  // The CM listens on every address; COLLECTOR_HOST names it for the agents.
  if (cfg.get("COLLECTOR_BIND", &v) && !v.empty()) o->host = v;
  collector::StoreConfig& s = o->store;
  config::Status st = config::read_int(cfg, "CLASSAD_LIFETIME", &s.classad_lifetime, nullptr, 1);
  if (st.ok) st = config::read_int(cfg, "ABSENT_EXPIRE_ADS_AFTER", &s.absent_expire_after);
  if (st.ok) st = config::read_int(cfg, "OFFLINE_EXPIRE_ADS_AFTER", &s.offline_expire_after);
  if (st.ok) st = config::read_bool(cfg, "EXPIRE_INVALIDATED_ADS", &s.expire_invalidated_ads);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  if (cfg.get("ABSENT_REQUIREMENTS", &v) && !v.empty()) {
    classad::ParseError perr;
    s.absent_requirements = classad::parse_expr(v, &perr);
    if (!s.absent_requirements) {
      *err = "ABSENT_REQUIREMENTS = " + v + ": " + perr.message;
      return false;
    }
  }
  std::string local_dir = "/var/lib/kite";
  if (cfg.get("LOCAL_DIR", &v) && !v.empty()) local_dir = v;
  if (!core::make_dirs(local_dir, 0755, err)) return false;
  o->persist_path = local_dir + "/collector-ads.json";
  *queue_db = local_dir + "/queue.db";
  if (cfg.get("JOB_QUEUE_DB", &v) && !v.empty()) *queue_db = v;
  *accountant_db = local_dir + "/accountant.db";
  // Agents resume their TLS sessions after a CM restart with tickets under these keys.
  *ticket_keys = local_dir + "/tls-ticket-keys";
  if (cfg.get("ACCOUNTANT_DB", &v) && !v.empty()) *accountant_db = v;
  if (cfg.get("COLLECTOR_PERSISTENT_AD_LOG", &v) && !v.empty()) o->persist_path = v;
  o->authz = policy::authz_policy(authz_get, const_cast<config::Config*>(&cfg));
  return true;
}

int fail(const std::string& err) {
  KLOG_ERROR("%s", err.c_str());
  std::fprintf(stderr, "kite cm: %s\n", err.c_str());
  return 1;
}

}  // namespace

int cm_main(int argc, char** argv) {
  std::string config_path;
  bool foreground = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
      config_path = argv[++i];
    } else if (std::strcmp(argv[i], "--foreground") == 0 || std::strcmp(argv[i], "-f") == 0) {
      foreground = true;
    } else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "kite cm: unknown option '%s'\n", argv[i]);
      return usage();
    }
  }
  config::Config cfg("COLLECTOR");
  config::Status st = agent::config_load_default(config_path.c_str(), &cfg);
  if (st.ok) st = cfg.finish();
  if (!st.ok) return fail("configuration error: " + st.message);
  cm::CollectorOptions opts;
  std::string err, log_path, queue_db, accountant_db, ticket_keys;
  if (!read_settings(cfg, &opts, &queue_db, &accountant_db, &ticket_keys, &err))
    return fail("configuration error: " + err);
  net::TlsFiles files;
  if (!net::tls_files_from(&cfg, &files, &err)) return fail("configuration error: " + err);
  files.ticket_keys = ticket_keys;
  // The log opens first so that what loading the TLS state reports (ticket keys) is in it;
  // both come before detaching, so that their errors still reach the terminal.
  if (cfg.get("CM_LOG", &log_path) && !log_path.empty() &&
      !core::Log::open(log_path, 10 << 20, &err)) {
    return fail(err);
  }
  auto tls = net::TlsContext::load(net::TlsContext::Role::kServer, files, &err);
  if (!tls) return fail(err);
  if (!foreground && !daemonize()) return fail("cannot detach from the terminal");

  uv_loop_t loop;
  uv_loop_init(&loop);
  ::signal(SIGPIPE, SIG_IGN);
  int rc = 0;
  {
    cm::CollectorServer server(&loop, std::move(tls), std::move(opts));
    cm::CmContext ctx;
    ctx.loop = &loop;
    ctx.cfg = &cfg;
    ctx.collector = &server;
    ctx.accountant_db = accountant_db;
#if KITE_HAS_JOB_STORE
    queue::JobStore jobs;
    if (jobs.open(queue_db, &err)) {
      ctx.jobs = &jobs;
    } else {
      err = "job queue " + queue_db + ": " + err;
    }
#endif
    std::vector<std::unique_ptr<cm::CmService>> services;
    if (err.empty()) services = cm::make_cm_services(&ctx, &err);
    for (auto& s : services)
      if (s) server.add_service(s.get());
    if (!err.empty()) {
      rc = fail(err);
    } else if (!server.start(&err)) {
      rc = fail(err);
    } else {
      uv_signal_t sig_term, sig_int;
      for (auto [h, n] : {std::pair<uv_signal_t*, int>{&sig_term, SIGTERM}, {&sig_int, SIGINT}}) {
        uv_signal_init(&loop, h);
        h->data = &server;
        uv_signal_start(
            h,
            [](uv_signal_t* s, int) {
              KLOG_INFO("central manager shutting down");
              static_cast<cm::CollectorServer*>(s->data)->stop();
              uv_stop(s->loop);
            },
            n);
      }
      uv_run(&loop, UV_RUN_DEFAULT);
      uv_close(reinterpret_cast<uv_handle_t*>(&sig_term), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&sig_int), nullptr);
    }
    for (auto& s : services)
      if (s) s->stop();
    server.stop();
    uv_run(&loop, UV_RUN_DEFAULT);
  }
  uv_loop_close(&loop);
  return rc;
}

}  // namespace kite::cli
