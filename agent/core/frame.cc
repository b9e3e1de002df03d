// Frame encoding/decoding and the small cJSON wrapper used on every Kite socket.
#include "agent/core/frame.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "policy/util/double_to_int.h"

namespace kite::core {
namespace {

// A FrameReader keeps this much buffer between frames; what a bigger frame grew is freed.
constexpr size_t kIdleFrameBuffer = 2048;

}  // namespace

Json Json::message(const char* type) {
  Json j = object();
  j.set("type", type);
  return j;
}

Json& Json::set(const char* key, const char* v) {
  cJSON_DeleteItemFromObjectCaseSensitive(j_, key);
  cJSON_AddItemToObject(j_, key, cJSON_CreateString(v));
  return *this;
}

Json& Json::set(const char* key, int64_t v) {
  cJSON_DeleteItemFromObjectCaseSensitive(j_, key);
  // cJSON keeps numbers as doubles: exact up to 2^53, plenty for pids, times and sizes.
  cJSON_AddItemToObject(j_, key, cJSON_CreateNumber(static_cast<double>(v)));
  return *this;
}

Json& Json::set_real(const char* key, double v) {
  cJSON_DeleteItemFromObjectCaseSensitive(j_, key);
  cJSON_AddItemToObject(j_, key, cJSON_CreateNumber(v));
  return *this;
}

Json& Json::set_bool(const char* key, bool v) {
  cJSON_DeleteItemFromObjectCaseSensitive(j_, key);
  cJSON_AddItemToObject(j_, key, cJSON_CreateBool(v));
  return *this;
}

Json& Json::set_json(const char* key, Json child) {
  cJSON_DeleteItemFromObjectCaseSensitive(j_, key);
  cJSON_AddItemToObject(j_, key, child.release());
  return *this;
}

const cJSON* Json::child(const char* key) const {
  return j_ ? cJSON_GetObjectItemCaseSensitive(j_, key) : nullptr;
}

bool Json::has(const char* key) const {
  return child(key) != nullptr;
}

std::string Json::str(const char* key, const char* def) const {
  const cJSON* c = child(key);
  return cJSON_IsString(c) ? std::string(c->valuestring) : std::string(def);
}

int64_t Json::num(const char* key, int64_t def) const {
  const cJSON* c = child(key);
  // Frames come from outside: a number that is not finite gives the default, one out of
  // range is clamped, never an undefined cast.
  if (!cJSON_IsNumber(c) || !std::isfinite(c->valuedouble)) return def;
  return util::double_to_int64_clamped(c->valuedouble, util::Round::kTowardZero, INT64_MIN,
                                       INT64_MAX, def);
}

double Json::real(const char* key, double def) const {
  const cJSON* c = child(key);
  return cJSON_IsNumber(c) ? c->valuedouble : def;
}

bool Json::flag(const char* key, bool def) const {
  const cJSON* c = child(key);
  return cJSON_IsBool(c) ? cJSON_IsTrue(c) : def;
}

std::string Json::dump() const {
  if (!j_) return "null";
  char* s = cJSON_PrintUnformatted(j_);
  if (!s) return "null";
  std::string out(s);
  cJSON_free(s);
  return out;
}

Json json_parse(std::string_view text, std::string* err) {
  const char* end = nullptr;
  cJSON* j = cJSON_ParseWithLengthOpts(text.data(), text.size(), &end, false);
  if (!j) {
    size_t at = end ? static_cast<size_t>(end - text.data()) : 0;
    if (err) *err = "bad JSON at byte " + std::to_string(at);
    return Json();
  }
  if (!cJSON_IsObject(j)) {
    cJSON_Delete(j);
    if (err) *err = "JSON is not an object";
    return Json();
  }
  return Json(j);
}

void frame_append(const Json& msg, std::string* out) {
  frame_append_text(msg.dump(), out);
}

void frame_append_text(std::string_view json, std::string* out) {
  uint32_t n = static_cast<uint32_t>(json.size());
  char len[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                 static_cast<char>(n)};
  out->append(len, 4);
  out->append(json.data(), json.size());
}

namespace {

// True when one of the 8 bytes of `w` must be escaped in a JSON string: below 0x20, '"' or '\\'
// (bit tricks that find a byte below n, exact for bytes under 0x80; higher bytes never match).
bool word_needs_escape(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  auto below = [&](uint64_t x, uint64_t n) { return (x - kOnes * n) & ~x & kHighs; };
  return (below(w, 0x20) | below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1)) != 0;
}

}  // namespace

void append_json_string(std::string* out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  *out += '"';
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < s.size(); ++i) {
    // Eight bytes at a time past those that need nothing (a 64 KiB rows text is mostly such).
    while (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (word_needs_escape(w)) break;
      i += 8;
    }
    if (i >= s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += static_cast<char>(c);
    } else {
      char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out->append(u, 6);
    }
  }
  out->append(s.data() + run, s.size() - run);
  *out += '"';
}

std::string frame_encode(const Json& msg) {
  std::string out;
  frame_append(msg, &out);
  return out;
}

FrameReader::Result FrameReader::next(Json* msg, std::string* err) {
  if (broken_) {
    if (err) *err = "stream broken by an earlier oversized frame";
    return Result::kError;
  }
  size_t avail = buf_.size() - pos_;
  if (avail < 4) return Result::kNeedMore;
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + pos_);
  uint32_t n = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
  if (n > max_frame_) {
    broken_ = true;
    buf_.clear();
    pos_ = 0;
    if (err) {
      std::string limit = max_frame_ % (1u << 20) == 0 ? std::to_string(max_frame_ >> 20) + " MiB"
                          : max_frame_ % 1024 == 0     ? std::to_string(max_frame_ >> 10) + " KiB"
                                                       : std::to_string(max_frame_) + "-byte";
      *err = "frame of " + std::to_string(n) + " bytes is over the " + limit + " limit";
    }
    return Result::kError;
  }
  if (avail < 4 + size_t{n}) return Result::kNeedMore;
  std::string_view body(buf_.data() + pos_ + 4, n);
  pos_ += 4 + size_t{n};
  Json j = json_parse(body, err);
  // Compact once the consumed prefix dominates, so a long-lived reader stays small; an empty
  // buffer that grew for a big frame is given back (a CM holds thousands of readers).
  if (pos_ == buf_.size()) {
    if (buf_.capacity() > kIdleFrameBuffer) {
      std::string().swap(buf_);
    } else {
      buf_.clear();
    }
    pos_ = 0;
  } else if (pos_ > 4096 && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  if (!j) return Result::kError;
  if (!cJSON_IsString(j.child("type"))) {
    if (err) *err = "frame has no string \"type\"";
    return Result::kError;
  }
  *msg = std::move(j);
  return Result::kMessage;
}

}  // namespace kite::core
