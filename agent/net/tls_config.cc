// TLS file and COLLECTOR_HOST lookup shared by `kite cm`, the agent and the CLI.
#include "agent/net/tls_config.h"

#include <unistd.h>

#include <cstdlib>

namespace kite::net {
namespace {

std::string lookup(const config::Config* cfg, const char* name) {
  std::string v;
  if (cfg && cfg->get(name, &v) && !v.empty()) return v;
  const char* e = std::getenv(name);
  return e ? e : "";
}

}  // namespace

bool tls_files_from(const config::Config* cfg, TlsFiles* out, std::string* err) {
  out->ca = lookup(cfg, "KITE_CA");
  out->cert = lookup(cfg, "KITE_CERT");
  out->key = lookup(cfg, "KITE_KEY");
  out->crl = lookup(cfg, "KITE_CRL");
  for (auto [name, value] : {std::pair<const char*, const std::string*>{"KITE_CA", &out->ca},
                             {"KITE_CERT", &out->cert},
                             {"KITE_KEY", &out->key}}) {
    if (value->empty()) {
      *err = std::string(name) + " is not set (in the configuration or the environment)";
      return false;
    }
  }
  return true;
}

TlsFiles user_tls_files() {
  const char* home = std::getenv("HOME");
  std::string dir = std::string(home ? home : "") + "/.kite/";
  auto pick = [&](const char* env, const char* file) {
    const char* e = std::getenv(env);
    return e && *e ? std::string(e) : dir + file;
  };
  TlsFiles f;
  f.ca = pick("KITE_CA", "ca.crt");
  f.cert = pick("KITE_CERT", "user.crt");
  f.key = pick("KITE_KEY", "user.key");
  const char* crl = std::getenv("KITE_CRL");
  if (crl && *crl) {
    f.crl = crl;
  } else if (::access((dir + "crl.pem").c_str(), R_OK) == 0) {
    f.crl = dir + "crl.pem";
  }
  return f;
}

bool parse_host_port(const std::string& text, std::string* host, int* port, std::string* err) {
  *port = kDefaultCollectorPort;
  std::string rest;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos) {
      *err = "'" + text + "': missing ']'";
      return false;
    }
    *host = text.substr(1, close - 1);
    rest = text.substr(close + 1);
  } else {
    size_t colon = text.rfind(':');
    *host = text.substr(0, colon);
    rest = colon == std::string::npos ? "" : text.substr(colon);
  }
  if (host->empty()) {
    *err = "'" + text + "': no host";
    return false;
  }
  if (!rest.empty()) {
    char* end = nullptr;
    long p = rest[0] == ':' ? std::strtol(rest.c_str() + 1, &end, 10) : -1;
    if (rest.size() < 2 || !end || *end || p <= 0 || p > 65535) {
      *err = "'" + text + "': the port must be a number from 1 to 65535";
      return false;
    }
    *port = static_cast<int>(p);
  }
  return true;
}

}  // namespace kite::net
