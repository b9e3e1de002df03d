// Power management end to end: a real agent on a copy of the server-4gpu board (its
// /sys/power/state and Wake-on-LAN interface) reporting to a real `kite cm` on loopback. When
// HIBERNATE turns true the agent sends its offline ads and writes "mem" to the fixture's
// /sys/power/state exactly once; the rooster of `kite cm` sends one magic packet for the
// board's MAC to a UDP socket of the test when an idle job in the queue matches the offline
// ad, and none when nothing matches.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "../hal/hal_test_util.h"
#include "agent/core/files.h"
#include "net_test_util.h"
#if KITE_HAS_JOB_STORE
#include "agent/queue/job_store.h"
#include "policy/classad/parser.h"
#endif

namespace kite::test {
namespace {

constexpr const char* kBoardMac = "3c:ec:ef:5a:20:14";  // server-4gpu's eno1

// A socket on 127.0.0.1 and its port (`type`: SOCK_STREAM to learn a free port, SOCK_DGRAM to
// receive the rooster's packets).
int bound_socket(int type, int* port) {
  int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

int count_lines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t p = 0; (p = text.find(needle, p)) != std::string::npos; p += needle.size()) ++n;
  return n;
}

// The agent and `kite cm` can run here (root; not a node-only build, which has no `kite cm`).
#define REQUIRE_AGENT_AND_CM()                                                                \
  do {                                                                                        \
    REQUIRE_AGENT_TESTS();                                                                    \
    std::vector<std::string> argv = kite_command();                                           \
    argv.insert(argv.end(), {"cm", "--help"});                                                \
    if (run_cmd(argv, 10000).status != 0) GTEST_SKIP() << "no central manager in this build"; \
  } while (0)

class PowerPool {
 public:
  PowerPool() : power_("server-4gpu") {
    pki_.issue("cm", "cm1");
    pki_.issue("agent", "sleepy");
    int tcp = bound_socket(SOCK_STREAM, &port_);
    if (tcp >= 0) close(tcp);
    udp_ = bound_socket(SOCK_DGRAM, &udp_port_);
    EXPECT_GE(udp_, 0);
  }
  ~PowerPool() {
    if (cm_ > 0) {
      kill(cm_, SIGKILL);
      wait_bg(cm_, 10000);
    }
    if (udp_ >= 0) close(udp_);
  }

#if KITE_HAS_JOB_STORE
  // An idle job in the CM's queue that only the agent's machine matches.
  // A job only the sleeping machine's offline ads match: the CM's negotiator must not run it
  // on the machine while it is awake, so it stays idle for the rooster.
  void add_idle_job() {
    std::string err;
    ASSERT_TRUE(core::make_dirs(pki_.dir + "/cm", 0755, &err)) << err;
    queue::JobStore store;
    ASSERT_TRUE(store.open(pki_.dir + "/cm/queue.db", &err)) << err;
    classad::AdPtr cluster = classad::parse_classad(
        "[Owner = \"alice\"; Cmd = \"/bin/true\"; RequestCpus = 1; "
        "Requirements = TARGET.Machine == \"sleepy\" && TARGET.Cpus >= 1 && "
        "TARGET.Offline =?= True]");
    classad::AdPtr proc = classad::parse_classad("[]");
    ASSERT_TRUE(cluster && proc);
    const classad::ClassAd* procs[] = {proc.get()};
    int32_t id = 0;
    ASSERT_TRUE(store.submit(*cluster, procs, 1000, &id, &err)) << err;
  }
#endif

  bool start_cm(const std::string& extra = "") {
    std::string conf = pki_.dir + "/cm.conf";
    std::string text = "COLLECTOR_HOST = 127.0.0.1:" + std::to_string(port_) +
                       "\nKITE_CA = " + pki_.ca() + "/ca.crt\nKITE_CERT = " + pki_.dir +
                       "/cm1.crt\nKITE_KEY = " + pki_.dir + "/cm1.key\nLOCAL_DIR = " + pki_.dir +
                       "/cm\nCM_LOG = " + cm_log_path() +
                       "\nROOSTER_INTERVAL = 1\nROOSTER_WOL_ADDRESS = 127.0.0.1\n"
                       "ROOSTER_WOL_PORT = " +
                       std::to_string(udp_port_) + "\n" + extra + "\n";
    std::string err;
    EXPECT_TRUE(core::write_file_atomic(conf, text, 0644, &err)) << err;
    std::vector<std::string> argv = kite_command();
    argv.insert(argv.end(), {"cm", "-c", conf, "--foreground"});
    cm_ = spawn_bg(argv, pki_.dir + "/cm.out");
    return eventually([&] { return status({"-af", "Name"}).status == 0; }, 20000);
  }

  // The agent: two slots, its power facts from the board copy, HIBERNATE checked every second
  // but "NONE" until arm() (the CM must hear it first).
  bool start_agent(std::string* err) {
    std::string extra =
        "NUM_CPUS = 2\nNUM_SLOTS = 2\nNETWORK_HOSTNAME = sleepy\nCOLLECTOR_HOST = "
        "127.0.0.1:" +
        std::to_string(port_) + "\nUPDATE_INTERVAL = 60\nKITE_CA = " + pki_.ca() +
        "/ca.crt\nKITE_CERT = " + pki_.dir + "/sleepy.crt\nKITE_KEY = " + pki_.dir +
        "/sleepy.key\nKITE_POWER_ROOT = " + power_.dir() +
        "\nHIBERNATE_CHECK_INTERVAL = 1\nHIBERNATE = \"NONE\"\n";
    if (!agent_.start(extra, err)) return false;
    // Detection is done: from now on /sys/power/state is a FIFO, so the agent's "sleep" (its
    // write) lasts until the test reads it, as a real suspend lasts until the wake.
    std::string state = power_.dir() + "/sys/power/state";
    if (mkfifo((state + ".fifo").c_str(), 0644) != 0 ||
        rename((state + ".fifo").c_str(), state.c_str()) != 0) {
      *err = "cannot put a FIFO at " + state;
      return false;
    }
    return true;
  }

  // HIBERNATE = "RAM" by reconfiguration (SIGHUP).
  bool arm() {
    std::string conf = read_text(agent_.config()), err;
    size_t at = conf.find("HIBERNATE = \"NONE\"");
    if (at == std::string::npos) return false;
    conf.replace(at, 18, "HIBERNATE = \"RAM\"");
    return core::write_file_atomic(agent_.config(), conf, 0644, &err) &&
           kill(agent_.pid(), SIGHUP) == 0;
  }

  // What the agent wrote to /sys/power/state, once it writes (empty after `timeout_ms`).
  std::string read_sleep(int timeout_ms) {
    std::string state = power_.dir() + "/sys/power/state";
    int fd = open(state.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return "";
    std::string got;
    eventually(
        [&] {
          char buf[64];
          ssize_t n = read(fd, buf, sizeof buf);
          if (n > 0) got.append(buf, static_cast<size_t>(n));
          return n == 0 && !got.empty();  // the writer has closed
        },
        timeout_ms);
    close(fd);
    // Any later write goes to a plain file the test can inspect.
    std::string plain = state + ".plain";
    FILE* f = std::fopen(plain.c_str(), "w");
    if (f) {
      std::fputs("untouched\n", f);
      std::fclose(f);
    }
    rename(plain.c_str(), state.c_str());
    return got;
  }

  // Magic packets received so far.
  std::vector<std::string> packets() {
    std::vector<std::string> out;
    char buf[512];
    ssize_t n;
    while ((n = recv(udp_, buf, sizeof buf, 0)) >= 0) out.emplace_back(buf, static_cast<size_t>(n));
    return out;
  }

  CmdResult status(std::vector<std::string> args) const {
    std::vector<std::string> argv = {"env", "KITE_CA=" + pki_.ca() + "/ca.crt",
                                     "KITE_CERT=" + pki_.dir + "/cm1.crt",
                                     "KITE_KEY=" + pki_.dir + "/cm1.key"};
    for (const std::string& w : kite_command()) argv.push_back(w);
    argv.insert(argv.end(), {"status", "-pool", "127.0.0.1:" + std::to_string(port_)});
    argv.insert(argv.end(), args.begin(), args.end());
    return run_cmd(argv, 30000);
  }
  const std::string& dir() const {
    return pki_.dir;
  }
  std::string cm_log_path() const {
    return pki_.dir + "/cm.log";
  }
  std::string cm_log() const {
    return read_text(cm_log_path());
  }
  std::string state_file() const {
    return read_text(power_.dir() + "/sys/power/state");
  }
  TestAgent& agent() {
    return agent_;
  }

 private:
  TestPool pki_;
  hal::testing::ScratchRoot power_;
  TestAgent agent_;
  int port_ = 0, udp_ = -1, udp_port_ = 0;
  pid_t cm_ = -1;
};

std::string magic_packet_for(const std::string& mac) {
  std::string p(6, '\xff');
  std::string bytes;
  for (size_t i = 0; i < mac.size(); i += 3)
    bytes += static_cast<char>(std::strtol(mac.substr(i, 2).c_str(), nullptr, 16));
  for (int r = 0; r < 16; ++r) p += bytes;
  return p;
}

// The two slots' offline ads, as `kite status` prints them (the collector returns offline ads
// to a constraint that names Offline; condor_status -offline is about OfflineUniverses).
const char* kOfflineLines =
    "slot1@sleepy true S3 3 3c:ec:ef:5a:20:14 true\n"
    "slot2@sleepy true S3 3 3c:ec:ef:5a:20:14 true\n";

std::string offline_ads(PowerPool& p) {
  return p
      .status({"-constraint", "Offline =?= True", "-af", "Name", "Offline", "HibernationState",
               "HibernationLevel", "HardwareAddress", "IsWakeAble"})
      .out;
}

TEST(PowerHibernate, OfflineAdThenOneSleepAndNoPacketWithoutAMatch) {
  REQUIRE_AGENT_AND_CM();
  PowerPool p;
  ASSERT_TRUE(p.start_cm()) << p.cm_log();
  std::string err;
  ASSERT_TRUE(p.start_agent(&err)) << err;
  ASSERT_TRUE(eventually(
      [&] {
        return count_lines(p.status({"-af", "Name"}).out, "@sleepy") == 2;
      },
      20000))
      << p.cm_log();
  EXPECT_EQ(p.agent().slot_attr("slot1", "CanHibernate"), "true");
  EXPECT_EQ(p.agent().slot_attr("slot1", "HibernationSupportedStates"), "\"S1,S3,S4,S5\"");
  EXPECT_EQ(p.agent().slot_attr("slot1", "HardwareAddress"), std::string("\"") + kBoardMac + "\"");
  ASSERT_TRUE(p.arm());
  // The collector holds the offline ads while the node "sleeps".
  ASSERT_TRUE(eventually([&] { return offline_ads(p) == kOfflineLines; }, 20000))
      << offline_ads(p) << p.agent().log();
  // Nothing matches (no idle job; UNHIBERNATE is MachineLastMatchTime =!= UNDEFINED): three
  // rooster cycles see the offline ads and wake nobody.
  ASSERT_TRUE(eventually(
      [&] {
        return count_lines(p.cm_log(),
                           "rooster: 2 offline ad(s), 0 idle job(s) looked at, "
                           "waking 0 machine(s)") >= 3;
      },
      20000))
      << p.cm_log();
  EXPECT_TRUE(p.packets().empty());
  // The sleep method: "mem" written to the board's /sys/power/state.
  EXPECT_EQ(p.read_sleep(20000), "mem");
  // Awake again: the online ads replace the offline ones.
  ASSERT_TRUE(eventually([&] { return offline_ads(p).empty(); }, 20000)) << offline_ads(p);
  EXPECT_EQ(count_lines(p.status({"-af", "Name"}).out, "@sleepy"), 2);
  // Three more rooster cycles (seconds, so three HIBERNATE_CHECK_INTERVALs) later the agent
  // has not slept again: one decision, one call of the sleep method.
  int before = count_lines(p.cm_log(), "rooster: no offline ads");
  ASSERT_TRUE(eventually(
      [&] { return count_lines(p.cm_log(), "rooster: no offline ads") >= before + 3; }, 20000));
  EXPECT_EQ(p.state_file(), "untouched\n");
  EXPECT_EQ(count_lines(p.agent().log(), "power: entering S3"), 1) << p.agent().log();
  EXPECT_TRUE(p.packets().empty());
}

#if KITE_HAS_JOB_STORE
TEST(PowerHibernate, RoosterWakesTheMachineAnIdleJobMatches) {
  REQUIRE_AGENT_AND_CM();
  PowerPool p;
  p.add_idle_job();
  ASSERT_TRUE(p.start_cm()) << p.cm_log();
  std::string err;
  ASSERT_TRUE(p.start_agent(&err)) << err;
  ASSERT_TRUE(eventually(
      [&] {
        return count_lines(p.status({"-af", "Name"}).out, "@sleepy") == 2;
      },
      20000))
      << p.cm_log();
  ASSERT_TRUE(p.arm());
  std::vector<std::string> got;
  ASSERT_TRUE(eventually(
      [&] {
        for (std::string& s : p.packets()) got.push_back(std::move(s));
        return !got.empty();
      },
      20000))
      << p.cm_log() << p.agent().log();
  EXPECT_EQ(got[0], magic_packet_for(kBoardMac));
  // The wake (the sleep call returns), then the online ads replace the offline ones.
  EXPECT_EQ(p.read_sleep(20000), "mem");
  ASSERT_TRUE(eventually([&] { return offline_ads(p).empty(); }, 20000)) << offline_ads(p);
  int before = count_lines(p.cm_log(), "rooster: no offline ads");
  ASSERT_TRUE(eventually(
      [&] { return count_lines(p.cm_log(), "rooster: no offline ads") >= before + 2; }, 20000));
  for (std::string& s : p.packets()) got.push_back(std::move(s));
  // One packet per rooster cycle that saw the offline ads (one machine for two slots), each
  // for the board's MAC.
  std::string log = p.cm_log();
  int waking = count_lines(log, "waking 1 machine(s)");
  EXPECT_EQ(static_cast<int>(got.size()), waking) << log;
  EXPECT_EQ(count_lines(log, "waking 2 machine(s)"), 0);
  for (const std::string& pkt : got) EXPECT_EQ(pkt, magic_packet_for(kBoardMac));
  EXPECT_NE(log.find(std::string("rooster: woke sleepy: magic packet for ") + kBoardMac),
            std::string::npos)
      << log;
}

// ROOSTER_WAKEUP_CMD replaces the packet: the command reads the machine's offline ad on stdin.
TEST(PowerHibernate, RoosterRunsTheWakeupCommandWithTheAd) {
  REQUIRE_AGENT_AND_CM();
  PowerPool p;
  p.add_idle_job();
  std::string got = p.dir() + "/woken.ad";
  ASSERT_TRUE(p.start_cm("ROOSTER_WAKEUP_CMD = \"cat >> " + got + "\"")) << p.cm_log();
  std::string err;
  ASSERT_TRUE(p.start_agent(&err)) << err;
  ASSERT_TRUE(eventually(
      [&] {
        return count_lines(p.status({"-af", "Name"}).out, "@sleepy") == 2;
      },
      20000))
      << p.cm_log();
  ASSERT_TRUE(p.arm());
  ASSERT_TRUE(
      eventually([&] { return read_text(got).find("Offline = true") != std::string::npos; }, 20000))
      << p.cm_log();
  std::string ad = read_text(got);
  EXPECT_NE(ad.find(std::string("HardwareAddress = \"") + kBoardMac + "\""), std::string::npos)
      << ad;
  EXPECT_NE(ad.find("Machine = \"sleepy\""), std::string::npos) << ad;
  EXPECT_NE(ad.find("MachineLastMatchTime = "), std::string::npos) << ad;
  EXPECT_EQ(p.read_sleep(20000), "mem");
  EXPECT_TRUE(p.packets().empty());  // the command woke it, not a packet
}
#endif

}  // namespace
}  // namespace kite::test
