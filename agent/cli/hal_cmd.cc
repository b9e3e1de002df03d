// `kite hal`: prints what the hardware abstraction layer detects on this node (or on a
// recorded board) as the machine ad's hardware part, old ClassAd syntax or -json, so an
// admin can check a node. Exit status: 0 ok, 1 probe failed, 2 usage.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "agent/cli/commands.h"
#include "hal/machine_ad.h"
#include "hal/topology.h"
#include "policy/classad/json.h"
#include "policy/classad/unparse.h"
#include "policy/config/config.h"

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(
      stderr,
      "usage: kite hal [--root DIR] [--board NAME] [-c FILE] [-json] [--notes]\n"
      "       kite hal --export-hwloc FILE\n"
      "  --root DIR     read /proc, /sys, ... under DIR (default /)\n"
      "  --board NAME   use board/NAME/board.conf and, unless --root, its fixtures/\n"
      "  -c FILE        configuration file (default $KITE_CONFIG, else /etc/kite/kite.conf)\n"
      "  -json          print the ad as JSON\n"
      "  --notes        also print what is missing or was skipped (to stderr)\n"
      "  --export-hwloc write this node's hwloc XML export (to record a board)\n");
  return 2;
}

// The ClassAd library unparses reals canonically (2.000000000000000E+00); admins read ads as
// condor_status prints them (2.0, 0.35). Rewrites real literals outside string literals.
std::string readable_reals(const std::string& in) {
  std::string out;
  for (size_t i = 0; i < in.size();) {
    char c = in[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < in.size() && in[j] != '"') j += in[j] == '\\' ? 2 : 1;
      j = j < in.size() ? j + 1 : in.size();
      out.append(in, i, j - i);
      i = j;
      continue;
    }
    bool starts_number = c >= '0' && c <= '9' &&
                         (i == 0 || !(std::isalnum(static_cast<unsigned char>(in[i - 1])) ||
                                      in[i - 1] == '_' || in[i - 1] == '.'));
    if (starts_number) {
      size_t j = i;
      while (j < in.size() &&
             (std::isdigit(static_cast<unsigned char>(in[j])) || in[j] == '.' || in[j] == 'E' ||
              in[j] == 'e' ||
              ((in[j] == '+' || in[j] == '-') && (in[j - 1] == 'E' || in[j - 1] == 'e')))) {
        ++j;
      }
      std::string tok = in.substr(i, j - i);
      if (tok.find('E') != std::string::npos && tok.find('.') != std::string::npos) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.15g", std::strtod(tok.c_str(), nullptr));
        tok = buf;
        if (tok.find_first_of(".e") == std::string::npos) tok += ".0";
      }
      out += tok;
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace

int hal_main(int argc, char** argv) {
  const char* root_dir = nullptr;
  const char* board = nullptr;
  const char* file = nullptr;
  const char* export_xml = nullptr;
  bool json = false, notes = false;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    auto arg = [&](const char** out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    if (std::strcmp(a, "--root") == 0 || std::strcmp(a, "-root") == 0) {
      if (!arg(&root_dir)) return usage();
    } else if (std::strcmp(a, "--board") == 0 || std::strcmp(a, "-board") == 0) {
      if (!arg(&board)) return usage();
    } else if (std::strcmp(a, "-c") == 0) {
      if (!arg(&file)) return usage();
    } else if (std::strcmp(a, "--export-hwloc") == 0) {
      if (!arg(&export_xml)) return usage();
    } else if (std::strcmp(a, "-json") == 0 || std::strcmp(a, "--json") == 0) {
      json = true;
    } else if (std::strcmp(a, "--notes") == 0) {
      notes = true;
    } else if (std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0) {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "kite hal: unknown option '%s'\n", a);
      return usage();
    }
  }
  if (export_xml) {
    hal::Status st = hal::topology_export_xml(export_xml);
    if (!st.ok) {
      std::fprintf(stderr, "kite hal: %s\n", st.message.c_str());
      return 1;
    }
    return 0;
  }

  std::string root = root_dir ? root_dir : "/";
  config::Config cfg("STARTD");
  config::Status cst;
  if (board) {
    std::string dir = std::string(KITE_BOARD_DIR) + "/" + board;
    if (!root_dir) root = dir + "/fixtures";
    cst = cfg.load_file(dir + "/board.conf");
  }
  if (cst.ok && file) {
    cst = cfg.load_file(file);
  } else if (cst.ok && !board) {
    const char* env = std::getenv("KITE_CONFIG");
    if (env && env[0]) {
      cst = cfg.load_file(env);
    } else {
      cst = cfg.load_main("/etc/kite/kite.conf", false);
    }
  }
  if (cst.ok) cst = cfg.finish();
  if (!cst.ok) {
    std::fprintf(stderr, "kite hal: configuration error: %s\n", cst.message.c_str());
    return 2;
  }

  hal::HalReport report;
  hal::Status st =
      hal::hal_probe(hal::Root(root), &cfg, std::time(nullptr), hal::GpuOptions(), &report);
  if (!st.ok) {
    std::fprintf(stderr, "kite hal: %s\n", st.message.c_str());
    return 1;
  }
  if (notes) {
    for (const std::string& n : report.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  }
  classad::AdPtr ad = hal::hal_machine_ad(report);
  std::string out;
  if (json) {
    out = classad::classad_to_json(*ad, true);
    out += '\n';
  } else {
    for (const classad::ClassAd::Entry& e : ad->sorted_entries()) {
      out.append(e.name->view());
      out += " = ";
      std::string v;
      classad::unparse_expr(v, e.expr);
      out += readable_reals(v);
      out += '\n';
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace kite::cli
