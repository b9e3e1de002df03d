// The list of `kite cm`'s services beside the collector: each part of the CM adds its line here.
#include "agent/cm/cm_service.h"
#include "agent/cm/node_commands.h"

namespace kite::cm {

std::vector<std::unique_ptr<CmService>> make_cm_services(CmContext* ctx, std::string* err) {
  (void)err;
  std::vector<std::unique_ptr<CmService>> services;
  services.push_back(std::make_unique<NodeCommands>(ctx));
  return services;
}

}  // namespace kite::cm
