// Tests of the durable accountant: save/load round trip, deleted records, bad stored ads, and a
// kill -9 test proving no usage is lost or counted twice across a restart.
#include "agent/queue/accountant_store.h"
#include "../scratch_dirs.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <random>

namespace kite::queue {
namespace {

using accountant::Accountant;

std::string temp_db() {
  return test::scratch_dir("kite-acct") + "/accountant.db";
}

// Step k of a deterministic CM life: every 60 s the usage of three submitters changes (also
// between updates, at 60k + 17) and the accountant is updated.
void step(Accountant& acc, int k) {
  const int64_t t = 1000000 + 60 * int64_t(k);
  acc.set_usage("a@pool", k % 5, double(k % 5), t - 43);
  acc.set_usage("b@pool", (k * 3) % 7, 1.5 * double((k * 3) % 7), t - 43);
  if (k % 10 == 0) acc.set_usage("c@pool", k % 3, double(k % 3), t - 20);
  acc.update(t);
}

void expect_same(const Accountant& a, const Accountant& b) {
  ASSERT_EQ(a.records().size(), b.records().size());
  for (const accountant::Record& ra : a.records()) {
    const accountant::Record* rb = b.find(ra.name);
    ASSERT_NE(rb, nullptr) << ra.name;
    EXPECT_NEAR(ra.priority, rb->priority, 1e-12 * ra.priority) << ra.name;
    EXPECT_NEAR(ra.weighted_accumulated, rb->weighted_accumulated,
                1e-9 * (1 + ra.weighted_accumulated))
        << ra.name;
    EXPECT_NEAR(ra.accumulated, rb->accumulated, 1e-9 * (1 + ra.accumulated)) << ra.name;
    EXPECT_EQ(ra.last_usage, rb->last_usage) << ra.name;
    EXPECT_EQ(ra.begin_usage, rb->begin_usage) << ra.name;
  }
}

TEST(AccountantStore, SaveAndLoad) {
  const std::string path = temp_db();
  Accountant acc;
  for (int k = 1; k <= 5; ++k) step(acc, k);
  acc.set_factor("a@pool", 2000, 1000300);
  acc.set_floor("b@pool", 3, 1000300);
  acc.set_ceiling("b@pool", 9, 1000300);
  acc.set_priority("gone@pool", 7, 1000300);
  std::string err;
  {
    AccountantStore store;
    ASSERT_TRUE(store.open(path, &err)) << err;
    ASSERT_TRUE(store.save(acc, &err)) << err;
    ASSERT_TRUE(acc.remove("gone@pool"));
    ASSERT_TRUE(store.save(acc, &err)) << err;
  }
  AccountantStore store;
  ASSERT_TRUE(store.open(path, &err)) << err;
  Accountant back;
  ASSERT_TRUE(store.load(&back, &err)) << err;
  expect_same(acc, back);
  EXPECT_EQ(back.find("gone@pool"), nullptr);
  EXPECT_EQ(back.last_update(), 1000300);
  EXPECT_EQ(back.factor("a@pool"), 2000);
  EXPECT_EQ(back.find("b@pool")->floor, 3);
  EXPECT_EQ(back.find("b@pool")->ceiling, 9);
  // Charging goes on from where it stopped.
  for (int k = 6; k <= 20; ++k) {
    step(acc, k);
    step(back, k);
  }
  expect_same(acc, back);
}

TEST(AccountantStore, ErrorsNameTheFileAndSubmitter) {
  AccountantStore store;
  std::string err;
  EXPECT_FALSE(store.open("/nonexistent-dir/accountant.db", &err));
  EXPECT_NE(err.find("/nonexistent-dir/accountant.db"), std::string::npos) << err;

  const std::string path = temp_db();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE accountant(name TEXT PRIMARY KEY, ad TEXT NOT NULL);"
                         "INSERT INTO accountant VALUES('x@pool', '[ Name = \"x@pool\"; "
                         "Priority = \"bad\" ]');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  ASSERT_TRUE(store.open(path, &err)) << err;
  Accountant acc;
  EXPECT_FALSE(store.load(&acc, &err));
  EXPECT_NE(err.find("x@pool"), std::string::npos) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
}

// A child runs the CM's accountant loop (step, save, acknowledge k on a pipe) and is killed with
// SIGKILL at a random point. The reloaded state must be exactly that after the last
// acknowledged step (or the one after, saved but not yet acknowledged), and carrying on from it
// must give what an accountant that never stopped gives: no usage lost or counted twice.
TEST(AccountantStore, KillNineLosesNoUsage) {
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 3; ++round) {
    const std::string path = temp_db();
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      AccountantStore store;
      std::string err;
      if (!store.open(path, &err)) _exit(3);
      Accountant acc;
      for (int k = 1;; ++k) {
        step(acc, k);
        if (!store.save(acc, &err) || write(fds[1], &k, sizeof k) != sizeof k) _exit(4);
      }
    }
    close(fds[1]);
    const int kill_after = 1 + int(rng() % 30);
    int acked = 0, k = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (acked < kill_after && std::chrono::steady_clock::now() < deadline &&
           read(fds[0], &k, sizeof k) == sizeof k)
      acked = k;
    usleep(useconds_t(rng() % 20000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child ended by itself, status " << status;
    while (read(fds[0], &k, sizeof k) == sizeof k) acked = k;
    close(fds[0]);
    ASSERT_GE(acked, kill_after);

    AccountantStore store;
    std::string err;
    ASSERT_TRUE(store.open(path, &err)) << err;
    Accountant back;
    ASSERT_TRUE(store.load(&back, &err)) << err;
    const int saved = int((back.last_update() - 1000000) / 60);
    ASSERT_TRUE(saved == acked || saved == acked + 1)
        << "saved step " << saved << ", acknowledged " << acked;
    Accountant never_stopped;
    for (int s = 1; s <= saved; ++s) step(never_stopped, s);
    expect_same(never_stopped, back);
    // The CM was down for 10 minutes: the claims went on and are charged on restart.
    for (int s = saved + 10; s <= saved + 40; ++s) {
      step(never_stopped, s);
      step(back, s);
    }
    expect_same(never_stopped, back);
  }
}

}  // namespace
}  // namespace kite::queue
