// Reading job ads files (see job_ads_file.h).
#include "agent/queue/job_ads_file.h"

#include <cstdio>

#include "policy/classad/json.h"
#include "policy/classad/parser.h"

namespace kite::queue {

namespace {

bool is_delimiter(std::string_view line) {
  size_t i = line.find_first_not_of(" \t\r");
  if (i == std::string_view::npos) return true;  // blank
  std::string_view rest = line.substr(i);
  return (i == 0 &&
          (rest.substr(0, 3) == "..." || rest.substr(0, 3) == "***" || rest.substr(0, 3) == "-- "));
}

bool flush(std::string& chunk, int first_line, const std::string& path,
           std::vector<classad::AdPtr>* out, std::string* err) {
  if (chunk.empty()) return true;
  classad::ParseError pe;
  classad::AdPtr ad = classad::parse_classad_old(chunk, &pe);
  if (!ad) {
    if (err) {
      *err = path + ": line " + std::to_string(first_line + pe.line - 1) + ": " + pe.message;
    }
    return false;
  }
  out->push_back(std::move(ad));
  chunk.clear();
  return true;
}

}  // namespace

bool parse_job_ads(std::string_view text, const std::string& path, std::vector<classad::AdPtr>* out,
                   std::string* err) {
  // condor_q -json output (a JSON array of ads) reads back as well, as with -jobads:auto.
  size_t start = text.find_first_not_of(" \t\r\n");
  size_t next =
      start == std::string_view::npos ? start : text.find_first_not_of(" \t\r\n", start + 1);
  if (next != std::string_view::npos && text[start] == '[' && text[next] == '{') {
    classad::ParseError pe;
    if (!classad::classads_from_json(text, *out, &pe)) {
      if (err) *err = path + ": " + pe.to_string();
      return false;
    }
    return true;
  }
  std::string chunk;
  int line_no = 0, chunk_start = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (is_delimiter(line)) {
      if (!flush(chunk, chunk_start, path, out, err)) return false;
      continue;
    }
    if (chunk.empty()) chunk_start = line_no;
    chunk.append(line);
    chunk += '\n';
  }
  return flush(chunk, chunk_start, path, out, err);
}

bool read_job_ads_file(const std::string& path, std::vector<classad::AdPtr>* out,
                       std::string* err) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "r");
  if (!f) {
    if (err) *err = "Can't open file of ClassAds: " + path;
    return false;
  }
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  if (f != stdin) std::fclose(f);
  return parse_job_ads(text, path, out, err);
}

}  // namespace kite::queue
