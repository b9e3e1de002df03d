// Test helpers shared by the configuration tests: load a configuration from text (source name
// "t.conf"), read a macro's expanded or raw value, get the error a bad configuration gives.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "policy/config/config.h"

namespace kite::config::testing {

/// The expanded value, "<undef>" when not defined, "<error: ...>" when expansion fails.
inline std::string get(const Config& c, const char* name) {
  std::string v;
  Status st;
  if (!c.get(name, &v, &st)) return "<undef>";
  if (!st.ok) return "<error: " + st.message + ">";
  return v;
}

/// The value as written, "<undef>" when not defined.
inline std::string raw(const Config& c, const char* name) {
  Entry e;
  return c.lookup(name, &e) ? e.value : "<undef>";
}

/// Loads and finishes `text`; without `st_out` the load must succeed.
inline Config load(std::string_view text, Status* st_out = nullptr) {
  Config c;
  Status st = c.load_string(text, "t.conf");
  if (st.ok) st = c.finish();
  if (st_out) {
    *st_out = st;
  } else {
    EXPECT_TRUE(st.ok) << st.message;
  }
  return c;
}

/// The message of the error `text` must give.
inline std::string error_of(std::string_view text) {
  Status st;
  load(text, &st);
  EXPECT_FALSE(st.ok) << text;
  return st.message;
}

}  // namespace kite::config::testing
