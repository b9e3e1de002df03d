// libFuzzer target for the frame decoder every Kite socket uses (agent/core/frame.h), the
// network's first parser of untrusted bytes: arbitrary bytes fed whole and in chunks (sizes
// taken from the input's first byte) must give the same messages and errors; every message
// has a string "type" and re-encodes to a frame that decodes to the same JSON; after an
// oversized length the reader stays broken. Build and run: see tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "agent/core/frame.h"

using kite::core::FrameReader;
using kite::core::Json;

namespace {

// Decodes everything buffered; one entry per result ("M<json>" or "E<error>").
void drain(FrameReader* r, std::vector<std::string>* out) {
  for (;;) {
    Json msg;
    std::string err;
    FrameReader::Result res = r->next(&msg, &err);
    if (res == FrameReader::Result::kNeedMore) return;
    if (res == FrameReader::Result::kError) {
      if (err.empty()) std::abort();
      out->push_back("E" + err);
      if (r->broken()) {
        // A broken stream never yields a message again.
        Json again;
        if (r->next(&again, &err) != FrameReader::Result::kError) std::abort();
        return;
      }
      continue;
    }
    if (!cJSON_IsString(msg.child("type"))) std::abort();
    std::string text = msg.dump();
    FrameReader back;
    std::string wire = kite::core::frame_encode(msg);
    back.feed(wire.data(), wire.size());
    Json again;
    std::string err2;
    if (back.next(&again, &err2) != FrameReader::Result::kMessage || again.dump() != text)
      std::abort();
    out->push_back("M" + text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t chunk = data[0] % 16 + 1;
  const char* bytes = reinterpret_cast<const char*>(data + 1);
  size_t n = size - 1;
  std::vector<std::string> whole, pieces;
  FrameReader a;
  a.feed(bytes, n);
  drain(&a, &whole);
  FrameReader b;
  for (size_t off = 0; off < n; off += chunk) {
    b.feed(bytes + off, off + chunk <= n ? chunk : n - off);
    drain(&b, &pieces);
    if (b.broken()) break;
  }
  if (whole != pieces) std::abort();
  return 0;
}
