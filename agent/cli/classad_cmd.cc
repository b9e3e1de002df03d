// `kite classad`: placeholder until the ClassAd language lands.
#include <cstdio>

#include "agent/cli/commands.h"

namespace kite::cli {

int classad_main(int, char**) {
  std::fprintf(stderr, "kite classad: not implemented yet\n");
  return 2;
}

}  // namespace kite::cli
