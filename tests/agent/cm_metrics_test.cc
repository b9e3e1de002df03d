// The CM's /metrics endpoint against a real `kite cm` with an agent connected, scraped over a
// raw socket: the OpenMetrics text and its figures moving with updates and queries, and
// malformed, oversized, wrong-method, wrong-path and silent requests answered (or timed out)
// while the CM keeps serving both HTTP and its TLS clients; the full and resumed handshake
// counts when the CM is killed and restarted with its ticket keys kept, then lost.
#include <arpa/inet.h>
#include <poll.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "pool_harness.h"

namespace kite::test {
namespace {

int dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Reads until the server closes (or `timeout_ms` passes: then what came so far).
std::string read_all(int fd, int timeout_ms) {
  std::string out;
  char buf[8192];
  for (int waited = 0; waited < timeout_ms; waited += 50) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Sends `request` as is and returns the whole answer.
std::string http_exchange(int port, const std::string& request, int timeout_ms = 10000) {
  int fd = dial(port);
  if (fd < 0) return "";
  size_t off = 0;
  while (off < request.size()) {
    ssize_t n = send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer and stop reading before all is sent
    off += static_cast<size_t>(n);
  }
  std::string out = read_all(fd, timeout_ms);
  close(fd);
  return out;
}

std::string scrape(int port) {
  return http_exchange(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
}

// The value of the sample line that starts with `name_and_labels` + " ", or -1 when none.
double value_of(const std::string& text, const std::string& name_and_labels) {
  std::string key = "\n" + name_and_labels + " ";
  size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::strtod(text.c_str() + at + key.size(), nullptr);
}

std::string status_line(const std::string& reply) {
  return reply.substr(0, reply.find("\r\n"));
}

TEST(CmMetrics, ScrapedFiguresFollowTheCollectorAndHostileRequestsGetErrors) {
  REQUIRE_CM();
  int mport = free_port();
  Pool pool("CM_METRICS_ADDRESS = " + std::to_string(mport));
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(pool.start_agent(&a, "node-a", "node-a", &err)) << err;
  ASSERT_TRUE(eventually([&] { return pool.names().size() == 2; }, 20000));

  std::string first;
  ASSERT_TRUE(eventually(
      [&] {
        first = scrape(mport);
        return value_of(first, "kite_collector_ads{type=\"Machine\",state=\"Unclaimed\"}") == 2;
      },
      20000))
      << first;
  EXPECT_EQ(status_line(first), "HTTP/1.1 200 OK");
  EXPECT_NE(first.find("\r\nContent-Type: application/openmetrics-text; version=1.0.0; "
                       "charset=utf-8\r\n"),
            std::string::npos)
      << first;
  size_t body_at = first.find("\r\n\r\n");
  ASSERT_NE(body_at, std::string::npos);
  std::string body = first.substr(body_at + 4);
  EXPECT_NE(first.find("\r\nContent-Length: " + std::to_string(body.size()) + "\r\n"),
            std::string::npos);
  ASSERT_GE(body.size(), 6u);
  EXPECT_EQ(body.substr(body.size() - 6), "# EOF\n");
  EXPECT_EQ(body.rfind("# TYPE kite_collector_ads gauge\n# HELP kite_collector_ads ", 0), 0u)
      << body;
  EXPECT_NE(body.find("\n# TYPE kite_collector_updates counter\n"), std::string::npos);
  EXPECT_NE(body.find("\n# TYPE kite_collector_query_duration_seconds histogram\n"),
            std::string::npos);
  EXPECT_GE(value_of(first, "kite_collector_connections"), 1);
  double updates = value_of(first, "kite_collector_updates_total");
  EXPECT_GE(updates, 2);
  double queries = value_of(first, "kite_collector_query_duration_seconds_count");
  EXPECT_GE(queries, 1);  // pool.names() asked the collector
  EXPECT_EQ(value_of(first, "kite_collector_query_duration_seconds_bucket{le=\"+Inf\"}"), queries);
  EXPECT_EQ(value_of(first, "kite_collector_handshake_failures_total"), 0);

  // A drain changes both slots' State: two updates, the gauge moves; a query is counted.
  CmdResult r = pool.run_as("root-admin", "drain", {"-name", "node-a"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string later;
  EXPECT_TRUE(eventually(
      [&] {
        later = scrape(mport);
        return value_of(later, "kite_collector_ads{type=\"Machine\",state=\"Drained\"}") == 2;
      },
      20000))
      << later;
  EXPECT_GE(value_of(later, "kite_collector_updates_total"), updates + 2);
  EXPECT_EQ(value_of(later, "kite_collector_ads{type=\"Machine\",state=\"Unclaimed\"}"), -1);
  pool.names();
  EXPECT_GT(value_of(scrape(mport), "kite_collector_query_duration_seconds_count"), queries);

  // A plain TCP client on the collector's TLS port is a failed handshake.
  int fd = dial(pool.port());
  ASSERT_GE(fd, 0);
  ASSERT_EQ(send(fd, "GET / HTTP/1.0\r\n\r\n", 18, MSG_NOSIGNAL), 18);
  read_all(fd, 5000);
  close(fd);
  EXPECT_TRUE(eventually(
      [&] { return value_of(scrape(mport), "kite_collector_handshake_failures_total") >= 1; },
      20000));

  // Hostile HTTP: a silent connection held open meanwhile does not stop the others.
  int silent = dial(mport);
  ASSERT_GE(silent, 0);
  EXPECT_EQ(status_line(http_exchange(mport, "GARBAGE\r\n\r\n")), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(status_line(http_exchange(
                mport, "GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n")),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(
      status_line(http_exchange(mport, "GET /" + std::string(5000, 'm') + " HTTP/1.1\r\n\r\n")),
      "HTTP/1.1 400 Bad Request");
  std::string post = http_exchange(mport, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(status_line(post), "HTTP/1.1 405 Method Not Allowed");
  EXPECT_NE(post.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos) << post;
  EXPECT_EQ(status_line(http_exchange(mport, "GET /secrets HTTP/1.1\r\n\r\n")),
            "HTTP/1.1 404 Not Found");
  std::string head = http_exchange(mport, "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(status_line(head), "HTTP/1.1 200 OK");
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");  // headers only
  EXPECT_EQ(status_line(scrape(mport)), "HTTP/1.1 200 OK");
  // The silent one is answered 408 and dropped once its time is up.
  std::string timed_out = read_all(silent, 15000);
  close(silent);
  EXPECT_EQ(status_line(timed_out), "HTTP/1.1 408 Request Timeout");
  // Still serving: HTTP and the collector.
  EXPECT_EQ(status_line(scrape(mport)), "HTTP/1.1 200 OK");
  EXPECT_EQ(pool.names().size(), 2u);
}

// How agent `cn` came back in the CM log text `log`: "resumed", "full" or "" (not yet).
std::string agent_handshake(const std::string& log, const std::string& cn) {
  std::string key = "connected as agent/" + cn;
  size_t at = log.find(key);
  if (at == std::string::npos) return "";
  return log.compare(at + key.size(), 18, " (resumed session)") == 0 ? "resumed" : "full";
}

TEST(CmMetrics, AgentsResumeTheirTlsSessionsAfterAKill9OfTheCm) {
  REQUIRE_CM();
  int mport = free_port();
  Pool pool("CM_METRICS_ADDRESS = " + std::to_string(mport));
  TestAgent a, b;
  std::string err;
  ASSERT_TRUE(pool.start_with_two_agents(&a, &b, &err)) << err;
  EXPECT_EQ(agent_handshake(pool.cm_log(), "node-a"), "full");
  std::string keys = pool.cm_dir() + "/tls-ticket-keys";
  struct stat st {};
  ASSERT_EQ(::stat(keys.c_str(), &st), 0) << "no ticket key file";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_GE(value_of(scrape(mport), "kite_collector_handshakes_total{kind=\"full\"}"), 2);

  // Killed and restarted: the agents come back with every ad, resuming their sessions.
  auto restart = [&](const char* what) {
    size_t log_from = pool.cm_log().size();
    pool.kill_cm();
    if (what) {
      std::string werr;
      EXPECT_TRUE(core::write_file_atomic(keys, what, 0600, &werr)) << werr;
    }
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(pool.start_cm()) << pool.cm_log();
    EXPECT_TRUE(eventually([&] { return pool.names().size() == 4; }, 20000));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("fleet back %.2f s after the CM restarted\n", secs);
    EXPECT_LT(secs, 5.0) << "the agents took " << secs << " s to bring their ads back";
    std::string log;
    EXPECT_TRUE(eventually(
        [&] {
          log = pool.cm_log().substr(log_from);
          return !agent_handshake(log, "node-a").empty() && !agent_handshake(log, "node-b").empty();
        },
        20000))
        << log;
    return log;
  };
  std::string log = restart(nullptr);
  EXPECT_EQ(agent_handshake(log, "node-a"), "resumed") << log;
  EXPECT_EQ(agent_handshake(log, "node-b"), "resumed") << log;
  std::string m = scrape(mport);
  EXPECT_GE(value_of(m, "kite_collector_handshakes_total{kind=\"resumed\"}"), 2) << m;

  // A corrupt key file: fresh keys (logged), so the old tickets are refused and the agents
  // fall back to full handshakes.
  log = restart("kite-ticket-keys 1\ncurrent zz\n");
  EXPECT_EQ(agent_handshake(log, "node-a"), "full") << log;
  EXPECT_EQ(agent_handshake(log, "node-b"), "full") << log;
  EXPECT_NE(log.find("session ticket keys " + keys + ": line 2:"), std::string::npos) << log;
  EXPECT_GE(value_of(scrape(mport), "kite_collector_handshakes_total{kind=\"full\"}"), 2);
}

TEST(CmMetrics, ABadAddressIsAConfigurationError) {
  REQUIRE_CM();
  Pool pool("CM_METRICS_ADDRESS = metrics.example:80");
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), {"cm", "-c", pool.pki().dir + "/cm.conf", "--foreground"});
  CmdResult r = run_cmd(argv, 20000);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("CM_METRICS_ADDRESS = metrics.example:80: 'metrics.example' is not a "
                       "numeric address"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace kite::test
