// Reading the tail of an output file and cleaning it to UTF-8.
#include "agent/starter/output_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace kite::starter {
namespace {

// Length of the UTF-8 sequence starting at s[i] if it is well formed, else 0.
size_t utf8_len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n;
  unsigned min;
  unsigned cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, min = 0x80, cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, min = 0x800, cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

std::string utf8_clean(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_len(s, i);
    if (n == 0) {
      out += '?';
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

std::string output_tail(const std::string& path, size_t max) {
  if (max == 0) return {};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) return {};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return {};
  }
  off_t size = st.st_size;
  off_t from = size > static_cast<off_t>(max) ? size - static_cast<off_t>(max) : 0;
  std::string data(static_cast<size_t>(size - from), '\0');
  size_t got = 0;
  while (got < data.size()) {
    ssize_t r = ::pread(fd, data.data() + got, data.size() - got, from + static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  data.resize(got);
  // A cut in the middle of a character: drop its continuation bytes.
  size_t skip = 0;
  if (from > 0) {
    while (skip < data.size() && skip < 3 &&
           (static_cast<unsigned char>(data[skip]) & 0xc0) == 0x80)
      ++skip;
  }
  return utf8_clean(std::string_view(data).substr(skip));
}

}  // namespace kite::starter
