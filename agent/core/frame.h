// Frames on Kite's sockets (the local control socket, agent <-> starter, later TLS to the CM):
// a 4-byte big-endian length, then one JSON object with a "type" field. Readers refuse frames
// over kMaxFrame and bad JSON with a message, never crash.
#pragma once

#include <cjson/cJSON.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kite::core {

inline constexpr size_t kMaxFrame = 1u << 20;

/// Owns one cJSON tree.
class Json {
 public:
  Json() = default;
  explicit Json(cJSON* j) : j_(j) {}
  ~Json() { cJSON_Delete(j_); }
  Json(Json&& o) noexcept : j_(o.j_) { o.j_ = nullptr; }
  Json& operator=(Json&& o) noexcept {
    if (this != &o) {
      cJSON_Delete(j_);
      j_ = o.j_;
      o.j_ = nullptr;
    }
    return *this;
  }
  Json(const Json&) = delete;
  Json& operator=(const Json&) = delete;

  static Json object() { return Json(cJSON_CreateObject()); }
  /// An object {"type": type}.
  static Json message(const char* type);

  cJSON* get() const { return j_; }
  cJSON* release() {
    cJSON* j = j_;
    j_ = nullptr;
    return j;
  }
  explicit operator bool() const { return j_ != nullptr; }

  // Builders (on an object).
  Json& set(const char* key, const char* v);
  Json& set(const char* key, const std::string& v) { return set(key, v.c_str()); }
  Json& set(const char* key, int64_t v);
  Json& set(const char* key, int v) { return set(key, static_cast<int64_t>(v)); }
  Json& set_real(const char* key, double v);
  Json& set_bool(const char* key, bool v);
  /// Takes ownership of `child`.
  Json& set_json(const char* key, Json child);

  // Readers (case-sensitive keys). Defaults when missing or of another type.
  std::string str(const char* key, const char* def = "") const;
  int64_t num(const char* key, int64_t def = 0) const;
  double real(const char* key, double def = 0) const;
  bool flag(const char* key, bool def = false) const;
  bool has(const char* key) const;
  const cJSON* child(const char* key) const;
  std::string type() const { return str("type"); }

  /// Compact JSON text.
  std::string dump() const;

 private:
  cJSON* j_ = nullptr;
};

/// Parses one JSON object. On failure returns an empty Json and says why in `err`.
Json json_parse(std::string_view text, std::string* err);

/// Appends the frame for `msg` (length prefix + compact JSON) to `out`.
void frame_append(const Json& msg, std::string* out);
/// Appends a frame whose JSON text the caller wrote (a large reply written straight, not
/// built as a cJSON tree, copied and printed).
void frame_append_text(std::string_view json, std::string* out);
/// Appends `s` as a JSON string (quoted; '"', '\\' and control characters escaped).
void append_json_string(std::string* out, std::string_view s);
std::string frame_encode(const Json& msg);

/// Incremental frame reader: feed bytes as they arrive, take whole messages out.
/// Empties `s` and gives its heap buffer back (a no-op for a string that has none).
inline void release_buffer(std::string* s) {
  if (s->capacity() > std::string().capacity()) {
    std::string().swap(*s);
  } else {
    s->clear();
  }
}

class FrameReader {
 public:
  enum class Result { kNeedMore, kMessage, kError };
  /// Frames longer than `max_frame` bytes (at most kMaxFrame) are refused.
  explicit FrameReader(size_t max_frame = kMaxFrame)
      : max_frame_(max_frame < kMaxFrame ? max_frame : kMaxFrame) {}
  void set_max_frame(size_t n) { max_frame_ = n < kMaxFrame ? n : kMaxFrame; }
  void feed(const char* data, size_t n) { buf_.append(data, n); }
  /// Next message if a whole frame is buffered. kError (with `err`) on an oversized frame or a
  /// frame that is not a JSON object with a string "type"; the bad frame is dropped, and after
  /// an oversized length the stream cannot be resynchronised (callers close).
  Result next(Json* msg, std::string* err);
  bool broken() const { return broken_; }
  size_t buffered() const { return buf_.size(); }
  /// The buffer itself (its capacity is what an idle connection keeps: memory accounting).
  const std::string& buffer() const { return buf_; }
  /// Frees the buffer when no partial frame is in it (an idle connection keeps nothing).
  void release_if_empty() {
    if (pos_ == buf_.size()) {
      release_buffer(&buf_);
      pos_ = 0;
    }
  }

 private:
  std::string buf_;
  size_t max_frame_;
  size_t pos_ = 0;
  bool broken_ = false;
};

}  // namespace kite::core
