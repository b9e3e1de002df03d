// Reads configuration text as statements and @= blocks (see line_reader.h).
// HTCONDOR: introduction-to-configuration "Multi-Line Values", line continuation.
#include "policy/config/line_reader.h"

#include "policy/config/internal.h"
#include "policy/config/text.h"

namespace kite::config::internal {
namespace {

bool is_comment_or_blank(std::string_view l) {
  std::string_view t = ltrim(l);
  return t.empty() || t.front() == '#';
}

}  // namespace

LineReader::LineReader(std::string_view text) {
  size_t b = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      std::string_view l = text.substr(b, i - b);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      if (i < text.size() || !l.empty()) lines_.push_back(l);
      b = i + 1;
    }
  }
}

bool LineReader::next(std::string* statement, int* line) {
  while (next_ < lines_.size() && is_comment_or_blank(lines_[next_])) ++next_;
  if (next_ >= lines_.size()) return false;
  *line = static_cast<int>(next_);
  std::string& s = *statement;
  s.assign(ltrim(lines_[next_++]));
  while (true) {
    std::string_view r = trim(s);
    if (r.empty() || r.back() != '\\') break;
    s.resize(static_cast<size_t>(r.data() - s.data()) + r.size() - 1);
    while (next_ < lines_.size() && !ltrim(lines_[next_]).empty() &&
           ltrim(lines_[next_]).front() == '#') {
      ++next_;
    }
    if (next_ >= lines_.size()) break;
    s += ltrim(lines_[next_++]);
  }
  s.assign(trim(s));
  return true;
}

bool LineReader::block(std::string_view tag, size_t max_bytes, std::string* body, bool* too_big) {
  body->clear();
  *too_big = false;
  while (next_ < lines_.size()) {
    std::string_view l = trim(lines_[next_++]);
    if (l.size() == tag.size() + 1 && l.front() == '@' && l.substr(1) == tag) return true;
    if (l.empty() || l.front() == '#') continue;
    if (!body->empty()) *body += '\n';
    body->append(l);
    if (body->size() > max_bytes) {
      *too_big = true;
      return false;
    }
  }
  return false;
}

}  // namespace kite::config::internal
