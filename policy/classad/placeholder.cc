// Placeholder translation unit so the policy library links before its sources land.
namespace kite::classad {
int placeholder_unused() { return 0; }
}  // namespace kite::classad
