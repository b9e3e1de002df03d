// `kite pki`: the pool's certificates in two commands (init a CA, issue per node/user), plus
// show and revoke (agent/net/pki.h does the work).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "agent/cli/commands.h"
#include "agent/net/pki.h"

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(stderr,
               "usage: kite pki init DIR [--pool NAME] [--days N]\n"
               "       kite pki issue --ca DIR --role agent|cm|admin|user NAME [--san HOST]...\n"
               "                      [--out DIR] [--days N]\n"
               "       kite pki show FILE\n"
               "       kite pki revoke --ca DIR CERTFILE\n");
  return 2;
}

bool parse_days(const char* s, int* out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!*s || *end || v < 0 || v > 36500) {
    std::fprintf(stderr, "kite pki: --days '%s' is not a number of days (0-36500)\n", s);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

int done(bool ok, const std::string& err) {
  if (ok) return 0;
  std::fprintf(stderr, "kite pki: %s\n", err.c_str());
  return 1;
}

int init_main(int argc, char** argv) {
  std::string dir, pool = "Kite pool";
  int days = 3650;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--pool") && i + 1 < argc) {
      pool = argv[++i];
    } else if (!std::strcmp(argv[i], "--days") && i + 1 < argc) {
      if (!parse_days(argv[++i], &days)) return 2;
    } else if (argv[i][0] != '-' && dir.empty()) {
      dir = argv[i];
    } else {
      return usage();
    }
  }
  if (dir.empty()) return usage();
  std::string err;
  if (!net::pki_init(dir, pool, days, &err)) return done(false, err);
  std::printf("pool CA in %s: ca.key (keep it secret), ca.crt, crl.pem\n", dir.c_str());
  return 0;
}

int issue_main(int argc, char** argv) {
  net::IssueRequest r;
  for (int i = 1; i < argc; ++i) {
    bool more = i + 1 < argc;
    if (!std::strcmp(argv[i], "--ca") && more) {
      r.ca_dir = argv[++i];
    } else if (!std::strcmp(argv[i], "--role") && more) {
      r.role = argv[++i];
    } else if (!std::strcmp(argv[i], "--san") && more) {
      r.sans.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--out") && more) {
      r.out_dir = argv[++i];
    } else if (!std::strcmp(argv[i], "--days") && more) {
      if (!parse_days(argv[++i], &r.days)) return 2;
    } else if (argv[i][0] != '-' && r.name.empty()) {
      r.name = argv[i];
    } else {
      return usage();
    }
  }
  if (r.ca_dir.empty() || r.role.empty() || r.name.empty()) return usage();
  std::string err;
  if (!net::pki_issue(r, &err)) return done(false, err);
  std::string out = r.out_dir.empty() ? "." : r.out_dir;
  std::printf("%s/%s.key (mode 0600) and %s/%s.crt: role %s\n", out.c_str(), r.name.c_str(),
              out.c_str(), r.name.c_str(), r.role.c_str());
  return 0;
}

int show_main(int argc, char** argv) {
  if (argc != 2) return usage();
  std::string text, err;
  if (!net::pki_describe(argv[1], &text, &err)) return done(false, err);
  std::fputs(text.c_str(), stdout);
  return 0;
}

int revoke_main(int argc, char** argv) {
  std::string ca, cert;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--ca") && i + 1 < argc) {
      ca = argv[++i];
    } else if (argv[i][0] != '-' && cert.empty()) {
      cert = argv[i];
    } else {
      return usage();
    }
  }
  if (ca.empty() || cert.empty()) return usage();
  std::string err;
  if (!net::pki_revoke(ca, cert, &err)) return done(false, err);
  std::printf("%s revoked in %s/crl.pem\n", cert.c_str(), ca.c_str());
  return 0;
}

}  // namespace

int pki_main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string sub = argv[1];
  if (sub == "init") return init_main(argc - 1, argv + 1);
  if (sub == "issue") return issue_main(argc - 1, argv + 1);
  if (sub == "show") return show_main(argc - 1, argv + 1);
  if (sub == "revoke") return revoke_main(argc - 1, argv + 1);
  std::fprintf(stderr, "kite pki: unknown subcommand '%s'\n", sub.c_str());
  return usage();
}

}  // namespace kite::cli
