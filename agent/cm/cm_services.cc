// The list of `kite cm`'s services beside the collector: each part of the CM adds its line here.
#include "agent/cm/cm_service.h"

namespace kite::cm {

std::vector<std::unique_ptr<CmService>> make_cm_services(CmContext* ctx, std::string* err) {
  (void)ctx;
  (void)err;
  std::vector<std::unique_ptr<CmService>> services;
  return services;
}

}  // namespace kite::cm
