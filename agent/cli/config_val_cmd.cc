// `kite config-val`: placeholder until the configuration language lands.
#include <cstdio>

#include "agent/cli/commands.h"

namespace kite::cli {

int config_val_main(int, char**) {
  std::fprintf(stderr, "kite config-val: not implemented yet\n");
  return 2;
}

}  // namespace kite::cli
