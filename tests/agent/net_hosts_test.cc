// /etc/hosts lookup of the transport (agent/net/hosts_file.h), on files the test writes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "agent/net/hosts_file.h"

namespace kite::net {
namespace {

std::string write_hosts(const char* text) {
  char path[] = "/tmp/kite-hosts-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text, std::char_traits<char>::length(text)),
            static_cast<ssize_t>(std::char_traits<char>::length(text)));
  close(fd);
  return path;
}

std::string address_of(const sockaddr_storage& ss, int* port) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    *port = ntohs(in->sin_port);
  } else {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    *port = ntohs(in6->sin6_port);
  }
  return buf;
}

TEST(NetHosts, NamesAndAliasesResolveCaseIgnoredCommentsSkipped) {
  std::string f = write_hosts(
      "# cm.example.org 10.9.9.9 in a comment\n"
      "127.0.0.1\tlocalhost\n"
      "192.0.2.7   cm.example.org cm   # the pool's CM\n"
      "2001:db8::5 node-6.example.org\n"
      "not-an-address node-bad\n");
  sockaddr_storage ss{};
  int port = 0;
  ASSERT_TRUE(hosts_file_lookup("CM", 9618, &ss, f.c_str()));
  EXPECT_EQ(address_of(ss, &port), "192.0.2.7");
  EXPECT_EQ(port, 9618);
  ASSERT_TRUE(hosts_file_lookup("cm.example.org", 1, &ss, f.c_str()));
  EXPECT_EQ(address_of(ss, &port), "192.0.2.7");
  ASSERT_TRUE(hosts_file_lookup("node-6.example.org", 22, &ss, f.c_str()));
  EXPECT_EQ(address_of(ss, &port), "2001:db8::5");
  EXPECT_FALSE(hosts_file_lookup("node-bad", 1, &ss, f.c_str()));
  EXPECT_FALSE(hosts_file_lookup("in", 1, &ss, f.c_str()));
  EXPECT_FALSE(hosts_file_lookup("absent.example.org", 1, &ss, f.c_str()));
  EXPECT_FALSE(hosts_file_lookup("cm", 1, &ss, "/nonexistent/hosts"));
  std::remove(f.c_str());
}

}  // namespace
}  // namespace kite::net
