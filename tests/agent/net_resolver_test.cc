// DNS through c-ares on the loop (agent/net/resolver.h), against a small DNS responder on
// loopback that the test runs: A and AAAA answers, NXDOMAIN, a server that never answers, and
// a NetClient that dials a CM by a DNS name.
#include "agent/net/resolver.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <map>
#include <string>
#include <vector>

#include "net_test_util.h"

namespace kite::net {
namespace {

// Answers A/AAAA queries from a table: a name it knows gets its address, any other NXDOMAIN.
// With `silent` it answers nothing.
class FakeDns {
 public:
  FakeDns(uv_loop_t* loop, std::map<std::string, std::string> a,
          std::map<std::string, std::string> aaaa, bool silent = false)
      : a_(std::move(a)), aaaa_(std::move(aaaa)), silent_(silent) {
    uv_udp_init(loop, &udp_);
    udp_.data = this;
    sockaddr_in addr{};
    uv_ip4_addr("127.0.0.1", 0, &addr);
    EXPECT_EQ(uv_udp_bind(&udp_, reinterpret_cast<const sockaddr*>(&addr), 0), 0);
    sockaddr_storage ss{};
    int len = sizeof ss;
    uv_udp_getsockname(&udp_, reinterpret_cast<sockaddr*>(&ss), &len);
    port_ = ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    uv_udp_recv_start(
        &udp_,
        [](uv_handle_t*, size_t, uv_buf_t* b) {
          static char buf[2048];
          *b = uv_buf_init(buf, sizeof buf);
        },
        [](uv_udp_t* u, ssize_t n, const uv_buf_t* b, const sockaddr* from, unsigned) {
          if (n > 0 && from) static_cast<FakeDns*>(u->data)->answer(b->base, n, from);
        });
  }
  ~FakeDns() { uv_close(reinterpret_cast<uv_handle_t*>(&udp_), nullptr); }
  std::string servers() const { return "127.0.0.1:" + std::to_string(port_); }
  int queries = 0;

 private:
  void answer(const char* q, ssize_t n, const sockaddr* from) {
    ++queries;
    if (silent_ || n < 17) return;
    // The question: labels from byte 12, then type and class.
    std::string name;
    size_t p = 12;
    while (p < static_cast<size_t>(n) && q[p] != 0) {
      size_t len = static_cast<unsigned char>(q[p]);
      if (!name.empty()) name += '.';
      name.append(q + p + 1, len);
      p += len + 1;
    }
    size_t qend = p + 5;  // the zero label, type, class
    if (qend > static_cast<size_t>(n)) return;
    int type = (static_cast<unsigned char>(q[p + 1]) << 8) | static_cast<unsigned char>(q[p + 2]);
    const auto& table = type == 28 ? aaaa_ : a_;
    auto it = table.find(name);
    std::string r(q, qend);
    r[2] = static_cast<char>(0x81);                             // response, recursion desired
    r[3] = static_cast<char>(it == table.end() ? 0x83 : 0x80);  // NXDOMAIN or no error
    r[6] = 0;
    r[7] = it == table.end() ? 0 : 1;  // one answer
    r[8] = r[9] = r[10] = r[11] = 0;
    if (it != table.end()) {
      unsigned char rdata[16];
      int family = type == 28 ? AF_INET6 : AF_INET;
      EXPECT_EQ(inet_pton(family, it->second.c_str(), rdata), 1);
      int rdlen = type == 28 ? 16 : 4;
      const unsigned char rr[] = {0xC0, 0x0C,  // the name: a pointer to the question's
                                  0,    static_cast<unsigned char>(type),
                                  0,    1,  // type, IN
                                  0,    0,
                                  0,    60,  // TTL
                                  0,    static_cast<unsigned char>(rdlen)};
      r.append(reinterpret_cast<const char*>(rr), sizeof rr);
      r.append(reinterpret_cast<const char*>(rdata), static_cast<size_t>(rdlen));
    }
    auto* req = new uv_udp_send_t;
    auto* keep = new std::string(std::move(r));
    req->data = keep;
    uv_buf_t buf = uv_buf_init(keep->data(), static_cast<unsigned>(keep->size()));
    uv_udp_send(req, &udp_, &buf, 1, from, [](uv_udp_send_t* s, int) {
      delete static_cast<std::string*>(s->data);
      delete s;
    });
  }

  uv_udp_t udp_;
  int port_ = 0;
  std::map<std::string, std::string> a_, aaaa_;
  bool silent_;
};

struct Answer {
  bool called = false, ok = false;
  std::string address, err;
  int port = 0;
};

Resolver::Done record(Answer* out) {
  return [out](bool ok, const sockaddr_storage& ss, const std::string& err) {
    out->called = true;
    out->ok = ok;
    out->err = err;
    char buf[INET6_ADDRSTRLEN] = {};
    if (ss.ss_family == AF_INET) {
      auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
      inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
      out->port = ntohs(in->sin_port);
    } else if (ss.ss_family == AF_INET6) {
      auto* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
      inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
      out->port = ntohs(in6->sin6_port);
    }
    out->address = buf;
  };
}

struct Loop {
  uv_loop_t loop;
  Loop() { uv_loop_init(&loop); }
  ~Loop() {
    uv_run(&loop, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop), 0);
  }
};

TEST(NetResolver, AnswersAThenAaaaAndNamesWhatFailed) {
  Loop l;
  FakeDns dns(&l.loop, {{"cm.kite.test", "192.0.2.7"}}, {{"v6.kite.test", "2001:db8::5"}});
  {
    Resolver r(&l.loop, dns.servers());
    Answer a;
    r.resolve("cm.kite.test", 9618, record(&a));
    EXPECT_FALSE(a.called);  // never inside resolve()
    ASSERT_TRUE(test::run_until(&l.loop, [&] { return a.called; }));
    EXPECT_TRUE(a.ok) << a.err;
    EXPECT_EQ(a.address, "192.0.2.7");
    EXPECT_EQ(a.port, 9618);

    Answer six;
    r.resolve("v6.kite.test", 443, record(&six));
    ASSERT_TRUE(test::run_until(&l.loop, [&] { return six.called; }));
    EXPECT_TRUE(six.ok) << six.err;
    EXPECT_EQ(six.address, "2001:db8::5");
    EXPECT_EQ(six.port, 443);

    Answer none;
    r.resolve("nowhere.kite.test", 1, record(&none));
    ASSERT_TRUE(test::run_until(&l.loop, [&] { return none.called; }));
    EXPECT_FALSE(none.ok);
    EXPECT_EQ(none.err.rfind("DNS lookup of nowhere.kite.test: ", 0), 0u) << none.err;

    // A dropped lookup is never answered.
    Answer dropped;
    r.resolve("cm.kite.test", 1, record(&dropped));
    r.cancel();
    int before = dns.queries;
    test::run_until(&l.loop, [&] { return dns.queries > before; });
    test::run_until(
        &l.loop, [] { return false; }, 200);
    EXPECT_FALSE(dropped.called);
  }
}

TEST(NetResolver, AServerThatNeverAnswersTimesOutWithoutBlockingTheLoop) {
  Loop l;
  FakeDns dns(&l.loop, {}, {}, true);
  Resolver r(&l.loop, dns.servers());
  Answer a;
  uint64_t start = uv_hrtime();
  r.resolve("cm.kite.test", 1, record(&a));
  // The loop keeps turning meanwhile: a timer fires while the lookup waits.
  int ticks = 0;
  uv_timer_t tick;
  uv_timer_init(&l.loop, &tick);
  tick.data = &ticks;
  uv_timer_start(
      &tick, [](uv_timer_t* t) { ++*static_cast<int*>(t->data); }, 50, 50);
  ASSERT_TRUE(test::run_until(
      &l.loop, [&] { return a.called; }, 30000));
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.err.find("DNS lookup of cm.kite.test: "), std::string::npos) << a.err;
  EXPECT_GT(ticks, 5);
  EXPECT_GE(dns.queries, 1);
  std::printf("timed out after %.1f s\n", static_cast<double>(uv_hrtime() - start) / 1e9);
}

TEST(NetResolver, AClientDialsAServerByItsDnsName) {
  Loop l;
  FakeDns dns(&l.loop, {{"collector.kite.test", "127.0.0.1"}}, {});
  test::TestPool pool;
  pool.issue("cm", "cm1");
  pool.issue("agent", "node-a");
  auto server_tls = pool.context(TlsContext::Role::kServer, "cm1");
  auto client_tls = pool.context(TlsContext::Role::kClient, "node-a");
  test::EchoServer echo;
  NetServer server(&l.loop, server_tls.get(), &echo, ConnOptions{"cm"});
  std::string err;
  ASSERT_TRUE(server.listen("127.0.0.1", 0, &err)) << err;
  test::RecordingClient rec;
  ClientOptions o;
  o.host = "collector.kite.test";
  o.port = server.port();
  o.dns_servers = dns.servers();
  {
    NetClient client(&l.loop, client_tls.get(), &rec, o);
    client.start();
    EXPECT_TRUE(test::run_until(&l.loop, [&] { return client.connected(); }))
        << rec.disconnected << " failed attempts";
    EXPECT_GE(dns.queries, 1);
    client.stop();
  }
  server.stop();
}

}  // namespace
}  // namespace kite::net
