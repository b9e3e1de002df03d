// Reading a cycle's settings once (see cycle_settings.h).
#include "policy/negotiator/cycle_settings.h"

#include "policy/config/typed.h"
#include "policy/negotiator/negotiator.h"

namespace kite::negotiator {

std::shared_ptr<const CycleSettings> read_cycle_settings(const config::Config* cfg) {
  auto s = std::make_shared<CycleSettings>();
  std::string warning;
  s->knobs = knobs_read(cfg, &warning);
  if (!warning.empty()) s->warnings.push_back(warning);
  if (!cfg) return s;
  config::Status st = config::read_bool(*cfg, "NEGOTIATOR_USE_SLOT_WEIGHTS", &s->use_slot_weights);
  if (!st.ok) s->warnings.push_back(st.message);
  st = fairshare::group_settings_from_config(*cfg, &s->groups);
  if (!st.ok) {
    s->warnings.push_back(st.message);
    s->groups = fairshare::GroupSettings{};
  }
  st = fairshare::limits_from_config(*cfg, &s->limits);
  if (!st.ok) s->warnings.push_back(st.message);
  return s;
}

}  // namespace kite::negotiator
