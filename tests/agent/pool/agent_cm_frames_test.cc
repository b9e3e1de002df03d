// The agent against a scripted central manager: hostile or malformed claim frames are answered
// with an error or a refusal and never crash it; a peer whose certificate is not a CM's may not
// send claim frames at all; a CM that connects hears the agent's claims.
#include "../pool_harness.h"
#include "agent/core/ad_json.h"
#include "agent/net/server.h"
#include "policy/classad/parser.h"

namespace kite::test {
namespace {

// A TLS server that records every frame an agent sends it.
struct FakeCm : net::TlsConnHandler {
  net::TlsConn* conn = nullptr;
  std::vector<std::string> frames;  // JSON text, in order
  void on_ready(net::TlsConn* c) override { conn = c; }
  bool on_frame(net::TlsConn*, core::Json& msg) override {
    frames.push_back(msg.dump());
    return true;
  }
  void on_closed(net::TlsConn* c, const std::string&) override {
    if (c == conn) conn = nullptr;
  }
  // The replies (not the ad updates) received so far.
  std::vector<core::Json> replies() const {
    std::vector<core::Json> out;
    for (const std::string& f : frames) {
      std::string err;
      core::Json j = core::json_parse(f, &err);
      std::string t = j.type();
      if (t != "update" && t != "invalidate") out.push_back(std::move(j));
    }
    return out;
  }
};

const std::string kId(64, 'a');

core::Json frame(const char* type, const std::string& id = "") {
  core::Json m = core::Json::message(type);
  if (!id.empty()) m.set("claim_id", id);
  return m;
}

core::Json with_job(core::Json m, const char* ad_text) {
  classad::AdPtr ad = classad::parse_classad(ad_text);
  EXPECT_TRUE(ad) << ad_text;
  core::set_ad(&m, "job", *ad);
  return m;
}

class AgentCmFrames : public testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_AGENT_TESTS();
    pki_.issue("cm", "cm1");
    pki_.issue("admin", "not-a-cm");
    pki_.issue("agent", "node-a");
    uv_loop_init(&loop_);
  }
  void TearDown() override {
    if (server_) server_->stop();
    server_.reset();
    tls_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  }
  // Listens with `cert`'s certificate and starts an agent whose COLLECTOR_HOST is us (and
  // whose configuration ends with `agent_extra`).
  void serve_as(const std::string& cert, const std::string& agent_extra = "") {
    tls_ = pki_.context(net::TlsContext::Role::kServer, cert);
    server_ = std::make_unique<net::NetServer>(&loop_, tls_.get(), &cm_, net::ConnOptions{});
    std::string err;
    ASSERT_TRUE(server_->listen("127.0.0.1", 0, &err)) << err;
    std::string extra =
        "NUM_CPUS = 2\nNUM_SLOTS = 2\nNETWORK_HOSTNAME = node-a\n"
        "COLLECTOR_HOST = 127.0.0.1:" +
        std::to_string(server_->port()) + "\nKITE_CA = " + pki_.ca() +
        "/ca.crt\nKITE_CERT = " + pki_.dir + "/node-a.crt\nKITE_KEY = " + pki_.dir +
        "/node-a.key\n" + agent_extra;
    ASSERT_TRUE(agent_.start(extra, &err)) << err;
    ASSERT_TRUE(run_until(
        &loop_, [&] { return cm_.conn != nullptr; }, 20000))
        << agent_.log();
  }
  // Waits for a reply of `type` about claim `id` after the first `from` replies.
  core::Json reply_of(const std::string& type, const std::string& id, size_t from = 0) {
    core::Json found;
    run_until(
        &loop_,
        [&] {
          std::vector<core::Json> r = cm_.replies();
          for (size_t i = from; i < r.size(); ++i) {
            if (r[i].type() == type && r[i].str("claim_id") == id) {
              found = std::move(r[i]);
              return true;
            }
          }
          return false;
        },
        20000);
    return found;
  }
  // Sends `m` and returns the next reply.
  core::Json ask(const core::Json& m) {
    size_t before = cm_.replies().size();
    cm_.conn->send(m);
    bool got = run_until(
        &loop_, [&] { return cm_.replies().size() > before; }, 10000);
    EXPECT_TRUE(got) << "no answer to " << m.dump() << "\n" << agent_.log();
    std::vector<core::Json> r = cm_.replies();
    return got ? std::move(r[before]) : core::Json::object();
  }

  TestPool pki_;
  uv_loop_t loop_{};
  std::unique_ptr<net::TlsContext> tls_;
  std::unique_ptr<net::NetServer> server_;
  FakeCm cm_;
  TestAgent agent_;
};

TEST_F(AgentCmFrames, HostileFramesAreRefusedAndTheAgentLivesOn) {
  serve_as("cm1");
  // A CM that connects hears the agent's claims first: none yet.
  ASSERT_TRUE(run_until(
      &loop_, [&] { return !cm_.replies().empty(); }, 10000))
      << agent_.log();
  core::Json report = std::move(cm_.replies()[0]);
  EXPECT_EQ(report.type(), "claims");
  EXPECT_EQ(cJSON_GetArraySize(report.child("claims")), 0);

  const char* job =
      "[ ClusterId = 7; ProcId = 0; Owner = \"nobody\"; Cmd = \"/bin/true\"; "
      "RequestCpus = 1; RequestMemory = 16; Requirements = true ]";
  core::Json r = ask(frame("claim"));
  EXPECT_EQ(r.type(), "error");
  EXPECT_NE(r.str("error").find("claim id"), std::string::npos) << r.dump();
  core::Json bad_id = frame("claim", "../../etc/passwd");
  bad_id.set("slot", "slot1");
  EXPECT_EQ(ask(bad_id).type(), "error");
  core::Json long_slot = frame("claim", kId);
  long_slot.set("slot", std::string(5000, 's'));
  EXPECT_EQ(ask(long_slot).type(), "error");
  core::Json no_slot = with_job(frame("claim", kId), job);
  no_slot.set("slot", "slot9");
  r = ask(no_slot);
  EXPECT_EQ(r.type(), "refused");
  EXPECT_EQ(r.str("reason"), "no slot slot9");
  core::Json not_ad = frame("claim", kId);
  not_ad.set("slot", "slot1").set("job", "not an ad");
  r = ask(not_ad);
  EXPECT_EQ(r.type(), "refused");
  EXPECT_NE(r.str("reason").find("bad job ad"), std::string::npos) << r.dump();
  r = ask(with_job(frame("activate", std::string(64, 'b')), job));
  EXPECT_EQ(r.type(), "error");
  EXPECT_NE(r.str("error").find("no such claim"), std::string::npos) << r.dump();
  core::Json alive = frame("alive");
  alive.set("claim_ids", "everything");
  EXPECT_EQ(ask(alive).type(), "error");
  EXPECT_EQ(ask(frame("release", "x")).type(), "error");
  EXPECT_EQ(ask(frame("vacate-job", kId)).type(), "error");

  // A real claim: granted once, its id not reusable, an activation without a job id refused.
  core::Json claim = with_job(frame("claim", kId), job);
  claim.set("slot", "slot1");
  r = ask(claim);
  EXPECT_EQ(r.type(), "claimed") << r.dump();
  EXPECT_EQ(r.str("slot"), "slot1");
  claim.set("slot", "slot2");
  r = ask(claim);
  EXPECT_EQ(r.type(), "refused");
  EXPECT_EQ(r.str("reason"), "the claim id is in use");
  r = ask(with_job(frame("activate", kId), "[ Cmd = \"/bin/true\" ]"));
  EXPECT_EQ(r.type(), "not-started");
  EXPECT_NE(r.str("reason").find("ClusterId"), std::string::npos) << r.dump();
  EXPECT_TRUE(eventually([&] { return agent_.slot_state("slot1") == "Claimed/Idle"; }, 10000));
  // An alive naming claims the agent does not hold: each is answered as released.
  core::Json unknown = frame("alive");
  core::Json ids(cJSON_CreateArray());
  cJSON_AddItemToArray(ids.get(), cJSON_CreateString(std::string(64, 'c').c_str()));
  unknown.set_json("claim_ids", std::move(ids));
  r = ask(unknown);
  EXPECT_EQ(r.type(), "released");
  EXPECT_EQ(r.str("claim_id"), std::string(64, 'c'));
  // Released by the CM: the slot is free again, and the agent still answers.
  cm_.conn->send(frame("release", kId));
  EXPECT_TRUE(eventually([&] { return agent_.slot_state("slot1") == "Unclaimed/Idle"; }, 10000))
      << agent_.slot_state("slot1");
  EXPECT_TRUE(agent_.running());
  EXPECT_EQ(agent_.kite({"status", "--local"}).status, 0);
}

TEST_F(AgentCmFrames, APreemptingClaimIsTheCoresToAcceptAndTakesTheSlotAfterTheEviction) {
  // A preempted job may run 8 s from its start, soft-killed 1 s (its vacate time) before.
  serve_as("cm1",
           "RANK = Owner == \"alice\"\nMAXJOBRETIREMENTTIME = 8\nMachineMaxVacateTime = 1\n");
  // The agent's claims report comes first.
  ASSERT_TRUE(run_until(
      &loop_, [&] { return !cm_.replies().empty(); }, 10000))
      << agent_.log();
  const std::string kSecond(64, 'd'), kThird(64, 'e'), kFourth(64, 'f');
  core::Json claim =
      with_job(frame("claim", kId), "[ ClusterId = 1; ProcId = 0; Owner = \"bob\" ]");
  claim.set("slot", "slot1");
  ASSERT_EQ(ask(claim).type(), "claimed");
  cm_.conn->send(with_job(frame("activate", kId),
                          "[ ClusterId = 1; ProcId = 0; Owner = \"bob\"; Cmd = \"/bin/sleep\"; "
                          "Arguments = \"60\"; JobUniverse = 5 ]"));
  ASSERT_TRUE(eventually([&] { return agent_.slot_state("slot1") == "Claimed/Busy"; }, 10000))
      << agent_.log();
  auto preempting = [&](const std::string& id, const char* owner) {
    core::Json m =
        with_job(frame("claim", id),
                 ("[ ClusterId = 2; ProcId = 0; Owner = \"" + std::string(owner) + "\" ]").c_str());
    m.set("slot", "slot1").set_bool("preempting", true).set("reason", "rank");
    return m;
  };
  // carol's job is not ranked above bob's: the core refuses.
  size_t n = cm_.replies().size();
  cm_.conn->send(preempting(kSecond, "carol"));
  core::Json r = reply_of("refused", kSecond, n);
  EXPECT_EQ(r.type(), "refused") << r.dump();
  EXPECT_NE(r.str("reason").find("RANK"), std::string::npos) << r.dump();
  // alice's is, but the CM withdraws it before the job is gone (MAXJOBRETIREMENTTIME keeps it):
  // the request is dropped and bob's job runs on.
  n = cm_.replies().size();
  cm_.conn->send(preempting(kThird, "alice"));
  ASSERT_TRUE(eventually([&] { return agent_.slot_state("slot1") == "Claimed/Retiring"; }, 10000))
      << agent_.slot_state("slot1") << agent_.log();
  cm_.conn->send(frame("release", kThird));
  r = reply_of("refused", kThird, n);
  EXPECT_NE(r.str("reason").find("withdrawn"), std::string::npos) << r.dump() << agent_.log();
  EXPECT_TRUE(eventually([&] { return agent_.slot_state("slot1") == "Claimed/Busy"; }, 10000))
      << agent_.slot_state("slot1");
  // Asked again: bob's job retires, is vacated, its exit (an eviction) and the end of its
  // claim come, then the preempting claim is the slot's.
  n = cm_.replies().size();
  cm_.conn->send(preempting(kFourth, "alice"));
  core::Json claimed = reply_of("claimed", kFourth, n);
  ASSERT_EQ(claimed.type(), "claimed") << agent_.log();
  EXPECT_EQ(claimed.str("slot"), "slot1");
  std::vector<std::string> order;
  std::vector<core::Json> all = cm_.replies();
  for (size_t i = n; i < all.size(); ++i) {
    std::string t = all[i].type();
    if (t == "exit" || t == "released" || t == "claimed" || t == "refused")
      order.push_back(t + " " + all[i].str("claim_id").substr(0, 1));
  }
  std::vector<std::string> want = {"exit a", "released a", "claimed f"};
  EXPECT_EQ(order, want) << agent_.log();
  for (size_t i = n; i < all.size(); ++i) {
    if (all[i].type() != "exit") continue;
    EXPECT_EQ(core::Json(cJSON_Duplicate(all[i].child("exit"), true)).str("outcome"), "evict")
        << all[i].dump();
  }
  EXPECT_EQ(agent_.slot_state("slot1"), "Claimed/Idle");
}

TEST_F(AgentCmFrames, OnlyACentralManagerMayClaim) {
  serve_as("not-a-cm");
  core::Json claim = with_job(frame("claim", kId), "[ ClusterId = 1; ProcId = 0 ]");
  claim.set("slot", "slot1");
  core::Json r = ask(claim);
  EXPECT_EQ(r.type(), "error");
  EXPECT_NE(r.str("error").find("only a central manager"), std::string::npos) << r.dump();
  EXPECT_EQ(agent_.slot_state("slot1"), "Unclaimed/Idle");
  EXPECT_NE(agent_.log().find("is not a central manager"), std::string::npos) << agent_.log();
}

}  // namespace
}  // namespace kite::test
