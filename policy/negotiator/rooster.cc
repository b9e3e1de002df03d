// The rooster's choice of machines to wake and the magic packet (see rooster.h).
#include "policy/negotiator/rooster.h"

#include <algorithm>
#include <map>

#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"

namespace kite::negotiator {
namespace {

bool read_expr(const config::Config& cfg, const char* name, const char* dflt, classad::ExprPtr* out,
               std::string* err) {
  std::string text;
  if (!cfg.get(name, &text) || text.find_first_not_of(" \t") == std::string::npos) text = dflt;
  classad::ParseError pe;
  *out = classad::parse_expr(text, &pe);
  if (*out) return true;
  *err = std::string(name) + " = " + text + ": " + pe.to_string();
  return false;
}

double rank_of(const classad::ClassAd& ad, const classad::Expr* e) {
  classad::Value v = ad.evaluate_expr(e);
  if (v.is_integer()) return static_cast<double>(v.as_integer());
  if (v.is_real()) return v.as_real();
  return 0;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool rooster_config(const config::Config& cfg, RoosterConfig* out, std::string* err) {
  config::Status st = config::read_int(cfg, "ROOSTER_INTERVAL", &out->interval, nullptr, 1);
  if (st.ok) st = config::read_int(cfg, "ROOSTER_MAX_UNHIBERNATE", &out->max_wake, nullptr, 0);
  int64_t port = out->wol_port;
  if (st.ok) st = config::read_int(cfg, "ROOSTER_WOL_PORT", &port, nullptr, 1, 65535);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  out->wol_port = static_cast<int>(port);
  std::string v;
  if (cfg.get("ROOSTER_WOL_ADDRESS", &v) && !v.empty()) out->wol_address = v;
  if (cfg.get("ROOSTER_WAKEUP_CMD", &v)) {
    // HTCondor's value is a quoted string: "$(BIN)/condor_power -d -i".
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    out->wakeup_cmd = v;
  }
  return read_expr(cfg, "ROOSTER_UNHIBERNATE", "Offline && Unhibernate", &out->unhibernate, err) &&
         read_expr(cfg, "ROOSTER_UNHIBERNATE_RANK", "Mips * Cpus", &out->rank, err);
}

std::vector<WakeTarget> rooster_pick(const RoosterConfig& cfg,
                                     const std::vector<classad::AdPtr>& offline,
                                     const std::vector<classad::AdPtr>* idle_jobs, int64_t now,
                                     std::vector<std::string>* skipped) {
  std::map<std::string, WakeTarget> by_machine;
  for (const classad::AdPtr& stored : offline) {
    classad::AdPtr ad(stored->copy());
    if (idle_jobs) {
      for (const classad::AdPtr& job : *idle_jobs) {
        classad::MatchPair mp(*ad, *job);
        if (!mp.symmetric()) continue;
        ad->insert_value("MachineLastMatchTime", classad::Value::integer(now));
        break;
      }
    }
    classad::Value wake = ad->evaluate_expr(cfg.unhibernate.get());
    if (!wake.is_boolean() || !wake.as_boolean()) continue;
    std::string machine, mac;
    if (!ad->evaluate_string("Machine", machine) && !ad->evaluate_string("Name", machine)) continue;
    if (!ad->evaluate_string("HardwareAddress", mac) || mac.empty() || mac == "00:00:00:00:00:00") {
      if (skipped) skipped->push_back(machine);
      continue;
    }
    double rank = rank_of(*ad, cfg.rank.get());
    auto it = by_machine.find(machine);
    if (it != by_machine.end() && it->second.rank >= rank) continue;
    WakeTarget& t = by_machine[machine];
    t.machine = machine;
    t.mac = mac;
    t.rank = rank;
    t.ad = std::move(ad);
  }
  std::vector<WakeTarget> out;
  for (auto& [name, t] : by_machine) out.push_back(std::move(t));
  // Best rank first; machines of equal rank by name, so a cycle is deterministic.
  std::stable_sort(out.begin(), out.end(),
                   [](const WakeTarget& a, const WakeTarget& b) { return a.rank > b.rank; });
  if (cfg.max_wake > 0 && out.size() > static_cast<size_t>(cfg.max_wake))
    out.resize(static_cast<size_t>(cfg.max_wake));
  return out;
}

bool wol_magic_packet(const std::string& mac, std::vector<uint8_t>* out, std::string* err) {
  uint8_t bytes[6];
  size_t pos = 0;
  int n = 0;
  // Six pairs of hex digits, separated by ':' or '-'.
  while (n < 6 && pos + 1 < mac.size() && hex(mac[pos]) >= 0 && hex(mac[pos + 1]) >= 0) {
    bytes[n++] = static_cast<uint8_t>(hex(mac[pos]) * 16 + hex(mac[pos + 1]));
    pos += 2;
    if (n < 6 && pos < mac.size() && (mac[pos] == ':' || mac[pos] == '-')) ++pos;
  }
  if (n != 6 || pos != mac.size()) {
    *err = "HardwareAddress \"" + mac + "\" is not a MAC address (aa:bb:cc:dd:ee:ff)";
    return false;
  }
  out->assign(6, 0xFF);
  for (int r = 0; r < 16; ++r) out->insert(out->end(), bytes, bytes + 6);
  return true;
}

}  // namespace kite::negotiator
