// Name lookup in /etc/hosts (see hosts_file.h).
#include "agent/net/hosts_file.h"

#include <strings.h>

#include <cstdio>
#include <cstring>

#include "agent/net/sockaddr.h"

namespace kite::net {

bool hosts_file_lookup(const std::string& name, int port, sockaddr_storage* out,
                       const char* hosts_file) {
  if (name.empty()) return false;
  FILE* f = std::fopen(hosts_file, "re");
  if (!f) return false;
  char line[1024];
  bool found = false;
  while (!found && std::fgets(line, sizeof line, f)) {
    if (char* hash = std::strchr(line, '#')) *hash = '\0';
    char* save = nullptr;
    const char* addr = strtok_r(line, " \t\r\n", &save);
    if (!addr) continue;
    for (const char* n = strtok_r(nullptr, " \t\r\n", &save); n && !found;
         n = strtok_r(nullptr, " \t\r\n", &save)) {
      if (strcasecmp(n, name.c_str()) == 0) found = numeric_sockaddr(addr, port, out);
    }
  }
  std::fclose(f);
  return found;
}

}  // namespace kite::net
