// `kite q -jobads` and `kite history -file` against what HTCondor 25's condor_q and
// condor_history printed (tests/data/queue/observed/, copies of the reference's files) for the
// job ads reconstructed in tests/data/queue/*.ads. The observed files come from a schedd query;
// for a file of ads condor_q titles the table "-- Jobads: FILE @ <first ad's ServerTime>" and,
// having no "all users" totals, prints that line's seven empty fields as their separators only.
// expected_for_jobads() makes exactly those two edits; everything else is compared byte for byte.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "../scratch_dirs.h"

namespace {

const std::string kData = std::string(KITE_SOURCE_DIR) + "/tests/data/queue/";

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs `kite ARGS` in tests/data/queue with TZ=UTC (the reference machine's zone).
std::string kite(const std::string& args, int* status = nullptr, const std::string& env = "") {
  std::string cmd = "cd " + kData + " && TZ=UTC " + env + " " + KITE_BINARY + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

// The observed output without its first line ("$ command").
std::string observed(const std::string& name) {
  std::string text = slurp(kData + "observed/" + name);
  EXPECT_FALSE(text.empty()) << name;
  return text.substr(text.find('\n') + 1);
}

std::string first_lines(const std::string& text, int n) {
  size_t pos = 0;
  for (int i = 0; i < n && pos != std::string::npos; ++i) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  return pos == std::string::npos ? text : text.substr(0, pos);
}

std::string expected_for_jobads(std::string text, const std::string& file) {
  size_t title = text.find("-- Schedd: ");
  if (title != std::string::npos) {
    size_t at = text.find(" @ ", title);
    text.replace(title, at - title, "-- Jobads: " + file);
  }
  size_t all = text.find("\nTotal for all users: ");
  if (all != std::string::npos) {
    size_t end = text.find('\n', all + 1);
    text.replace(all, end - all, "      ");
  }
  return text;
}

struct QueueCase {
  const char* observed;
  const char* ads;
  const char* args;
};

class QueueTable : public testing::TestWithParam<QueueCase> {};

TEST_P(QueueTable, MatchesCondorQ) {
  const QueueCase& c = GetParam();
  std::string want = expected_for_jobads(observed(c.observed), c.ads);
  int status = -1;
  // KITE_NOW stands in for the clock where no ad carries ServerTime (the empty queue).
  std::string got =
      kite(std::string("q -jobads ") + c.ads + " " + c.args, &status, "KITE_NOW=1795308479");
  EXPECT_EQ(status, 0);
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(
    Observed, QueueTable,
    testing::Values(
        QueueCase{"condor_q.default.txt", "queue-004818.ads", ""},
        QueueCase{"condor_q.empty.txt", "queue-empty.ads", ""},
        QueueCase{"condor_q.nobatch.txt", "queue-004818.ads", "-nobatch"},
        QueueCase{"condor_q.nobatch.mixed.txt", "queue-004907.ads", "-nobatch"},
        QueueCase{"condor_q.nobatch.after-prio.txt", "queue-004841.ads", "-nobatch 5 7"},
        QueueCase{"condor_q.hold.txt", "queue-004818.ads", "-hold"},
        QueueCase{"condor_q.hold.reason.txt", "queue-004808.ads", "-hold"},
        QueueCase{"condor_q.run.txt", "queue-004818.ads", "-run"},
        QueueCase{"condor_q.totals.txt", "queue-004818.ads", "-totals"},
        QueueCase{"condor_q.af.txt", "queue-004818.ads", "-af ClusterId ProcId JobStatus"},
        QueueCase{"condor_q.l.full.txt", "job60-full.ads", "-l 6.0"}),
    [](const testing::TestParamInfo<QueueCase>& info) {
      std::string name = info.param.observed;
      for (char& ch : name) {
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

// Files that hold only the first lines of the output (`| head -n N`).
TEST(QueueTable, LongAndJsonPrefixesMatch) {
  EXPECT_EQ(first_lines(kite("q -jobads job60-early.ads -l 6.0"), 60), observed("condor_q.l.txt"));
  EXPECT_EQ(first_lines(kite("q -jobads job60-early.ads -json 6.0"), 40),
            observed("condor_q.json.txt"));
}

TEST(HistoryTable, MatchesCondorHistory) {
  EXPECT_EQ(kite("history -file history.ads"), observed("condor_history.txt"));
  EXPECT_EQ(kite("history -file history-early.ads -limit 2 -af ClusterId ProcId JobStatus "
                 "ExitCode Owner"),
            observed("condor_history.limit-af.txt"));
  EXPECT_EQ(first_lines(kite("history -file history.ads -json -limit 1"), 20),
            observed("condor_history.json.txt"));
}

// Forms with no observed file, checked against the rules the observed ones show.
TEST(QueueTable, ConstraintSelectsAndMarksDoneUnknown) {
  std::string out = kite("q -jobads queue-004818.ads -constraint 'JobStatus == 1'");
  EXPECT_NE(out.find("htcuser ID: 5       11/22 00:48      _      _      2      2 5.0-1\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Total for query: 3 jobs;"), std::string::npos) << out;
  // No job held: the HOLD column is left out.
  EXPECT_EQ(out.find("HOLD"), std::string::npos) << out;
}

TEST(QueueTable, AutoformatOptions) {
  EXPECT_EQ(kite("q -jobads queue-004818.ads 6.1 -af:h ClusterId HoldReason NoSuch"),
            "ClusterId HoldReason                        NoSuch   \n"
            "6         via condor_hold (by user htcuser) undefined\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads 3 -af:,V Owner Args"), "\"htcuser\", \"30\"\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads 3 -af:lt Owner ProcId"),
            "Owner = htcuser\tProcId = 0\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads 3 -af:j Owner"), "3.0 htcuser\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads 3 -af:r MemoryUsage NoSuch"),
            "((ResidentSetSize + 1023) / 1024) undefined\n");
}

// condor_q's -hold and -run select jobs as well as choosing a table; -totals, -af, -l and -json
// print the selected jobs their own way, whatever the order of the options.
TEST(QueueTable, HoldAndRunSelectUnderEveryOutputForm) {
  const std::string title = "\n\n-- Jobads: queue-004818.ads @ 11/22/26 00:48:18\n";
  const std::string blanks = "      \n\n";  // no "all users" line for a file: its separators
  EXPECT_EQ(kite("q -jobads queue-004818.ads -hold -totals", nullptr, "KITE_NOW=1795308479"),
            title +
                "Total for query: 1 jobs; 0 completed, 0 removed, 0 idle, 0 running, 1 held, 0 "
                "suspended " +
                blanks);
  EXPECT_EQ(kite("q -jobads queue-004818.ads -totals -nobatch", nullptr, "KITE_NOW=1795308479"),
            title +
                "Total for query: 6 jobs; 0 completed, 0 removed, 3 idle, 2 running, 1 held, 0 "
                "suspended " +
                blanks);
  EXPECT_EQ(kite("q -jobads queue-004818.ads -run -af ClusterId ProcId"), "3 0\n6 0\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -af ProcId -hold"), "1\n");
  std::string run =
      kite("q -jobads queue-004818.ads -run -nobatch", nullptr, "KITE_NOW=1795308479");
  EXPECT_NE(run.find(" ID      OWNER            SUBMITTED     RUN_TIME HOST(S)\n"),
            std::string::npos)
      << run;
  int status = 0;
  kite("q -jobads queue-004818.ads -run -hold", &status);
  EXPECT_EQ(status, 1);
}

// condor_history's -format (printf conversions, no header), -xml (the <classads> document of
// condor_status -xml) and -wide (never cut) / -wide:N (cut at N).
TEST(QueueTable, HistoryFormatXmlAndWide) {
  EXPECT_EQ(
      kite("history -file history.ads -limit 3 -format '%d.' ClusterId -format '%d\\n' ProcId"),
      "8.0\n5.0\n6.0\n");
  EXPECT_EQ(kite("history -file history.ads -forwards -limit 2 -format '%s ' Owner -format "
                 "'%4.1f|' RemoteWallClockTime -format '[%s]' NoSuch -format '\\n' ProcId"),
            "htcuser  5.0|\nhtcuser  5.0|\n");
  std::string xml = kite("history -file history.ads -limit 1 -xml");
  // condor_history prints the header and the footer with printf("%s\n"): one more newline each.
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n"
                      "<classads>\n\n<c>\n    <a n=\"ActivationDuration\"><i>5</i></a>\n",
                      0),
            0u)
      << xml;
  EXPECT_NE(xml.find("    <a n=\"ClusterId\"><i>8</i></a>\n"), std::string::npos) << xml;
  EXPECT_NE(xml.find("    <a n=\"Owner\"><s>htcuser</s></a>\n"), std::string::npos) << xml;
  EXPECT_EQ(xml.substr(xml.size() - 19), "</c>\n\n</classads>\n\n");
  EXPECT_EQ(kite("history -file history.ads -wide -limit 1"),
            " ID          OWNER            SUBMITTED   RUN_TIME   ST   COMPLETED CMD\n"
            "8.0          htcuser        11/22 00:49   0+00:00:05 C  11/22 00:49 sleep 4\n");
  // -wide:N: condor_history's print mask cuts every line of the table, heading included, to N
  // characters (condor_tools/history.cpp sets the mask's overall width to N).
  EXPECT_EQ(kite("history -file history.ads -wide:50 -limit 2"),
            " ID          OWNER            SUBMITTED   RUN_TIME\n"
            "8.0          htcuser        11/22 00:49   0+00:00:\n"
            "5.0          htcuser        11/22 00:48   0+00:00:\n");
  EXPECT_EQ(kite("history -file history.ads -wide:100 -limit 1"),
            kite("history -file history.ads -wide -limit 1"));
}

// condor_q -xml goes through its ad list writer: the header comes with the first ad, ads follow
// one another with no blank line, and header and footer are written even when nothing matched.
TEST(QueueTable, XmlIsOneDocumentWithoutBlankLines) {
  std::string xml = kite("q -jobads queue-004818.ads -xml 3 5.1");
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n"
                      "<classads>\n<c>\n    <a n=\"",
                      0),
            0u)
      << xml;
  EXPECT_NE(xml.find("</c>\n<c>\n"), std::string::npos) << xml;
  EXPECT_NE(xml.find("    <a n=\"ProcId\"><i>1</i></a>\n"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("\n\n"), std::string::npos) << xml;
  EXPECT_EQ(xml.substr(xml.size() - 17), "</c>\n</classads>\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -xml -constraint false"),
            "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n"
            "</classads>\n");
}

// condor_q -attributes: what -l, -json and -xml print (names in any case, commas or blanks);
// -limit caps a schedd's answer, and a file of job ads is read whole.
TEST(QueueTable, AttributesCutLongJsonAndXmlAndLimitIsChecked) {
  EXPECT_EQ(kite("q -jobads queue-004818.ads -l -attributes ClusterId,owner 3 5.1"),
            "ClusterId = 3\nOwner = \"htcuser\"\n\nClusterId = 5\nOwner = \"htcuser\"\n\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -json -attributes 'ProcId JobStatus' 6.1"),
            "[\n{\n  \"JobStatus\": 5,\n  \"ProcId\": 1\n}\n]\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -l -attributes NoSuch 3"), "");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -xml -attributes Args 3"),
            "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n"
            "<c>\n    <a n=\"Args\"><s>30</s></a>\n</c>\n</classads>\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -limit 2 -af ClusterId ProcId"),
            "3 0\n5 0\n5 1\n6 0\n6 1\n7 0\n");
  int status = 0;
  EXPECT_EQ(kite("q -jobads queue-004818.ads -limit 0 -af ClusterId", &status),
            "Error: 0 is not a valid for -limit.\n");
  EXPECT_EQ(status, 1);
}

// JSON lines (condor_history -jsonl, condor_q -long:jsonl): each ad on one line as HTCondor's
// one-line JSON unparser writes it ("Attr": value pairs joined by a bare comma), no array.
// -long:json and -long:xml are -json and -xml.
TEST(QueueTable, JsonLinesAndLongForms) {
  EXPECT_EQ(kite("q -jobads queue-004818.ads -long:jsonl -attributes ClusterId,ProcId,Args 3 5"),
            "{\"Args\": \"30\",\"ClusterId\": 3,\"ProcId\": 0}\n"
            "{\"Args\": \"900\",\"ClusterId\": 5,\"ProcId\": 0}\n"
            "{\"Args\": \"900\",\"ClusterId\": 5,\"ProcId\": 1}\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -long:json -attributes ClusterId 3"),
            "[\n{\n  \"ClusterId\": 3\n}\n]\n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -long:xml -attributes ClusterId 3"),
            "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n"
            "<c>\n    <a n=\"ClusterId\"><i>3</i></a>\n</c>\n</classads>\n");
  std::string lines = kite("history -file history.ads -jsonl -limit 2");
  EXPECT_EQ(lines.rfind("{\"ActivationDuration\": 5,\"ActivationExecutionDuration\": 4,", 0), 0u)
      << lines;
  EXPECT_NE(lines.find(",\"ClusterId\": 8,"), std::string::npos) << lines;
  EXPECT_NE(lines.find("}\n{\"Args\": \"900\",\"ClusterId\": 5,"), std::string::npos) << lines;
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 2) << lines;
}

// condor_history -attributes: its projection; -long prints each ad's blank line even when
// none of the attributes is there.
TEST(QueueTable, HistoryAttributes) {
  EXPECT_EQ(kite("history -file history.ads -l -attributes clusterid,ProcId -limit 2"),
            "ClusterId = 8\nProcId = 0\n\nClusterId = 5\nProcId = 0\n\n");
  EXPECT_EQ(kite("history -file history.ads -l -attributes NoSuch -limit 2"), "\n\n");
  EXPECT_EQ(kite("history -file history.ads -jsonl -attributes ExitCode,ProcId -limit 1"),
            "{\"ExitCode\": 0,\"ProcId\": 0}\n");
}

// condor_q's -l, -json and -xml leave out HTCondor's private attributes (claim ids, transfer
// keys); condor_history -l prints the ad as it is.
TEST(QueueTable, PrivateAttributesOnlyInHistory) {
  const std::string dir = kite::test::scratch_dir("kite-q");
  std::string path = dir + "/private.ads";
  std::ofstream(path) << "ClusterId = 1\nProcId = 0\nClaimId = \"secret\"\nTransferKey = \"k\"\n"
                         "_condor_privX = 1\nJobStatus = 1\n";
  EXPECT_EQ(kite("q -jobads " + path + " -l"), "ClusterId = 1\nJobStatus = 1\nProcId = 0\n\n");
  EXPECT_EQ(kite("q -jobads " + path + " -long:jsonl"),
            "{\"ClusterId\": 1,\"JobStatus\": 1,\"ProcId\": 0}\n");
  EXPECT_EQ(kite("q -jobads " + path + " -l -attributes ClaimId,ProcId"), "ProcId = 0\n\n");
  EXPECT_EQ(kite("history -file " + path + " -l"),
            "_condor_privX = 1\nClaimId = \"secret\"\nClusterId = 1\nJobStatus = 1\nProcId = 0\n"
            "TransferKey = \"k\"\n\n");  // sorted ignoring case: '_' before letters
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

// condor_q -idle (its jobIdle print format): the idle jobs with universe, requests, shadow
// starts and last host; columns as wide as their headings at least, no totals. -idle selects
// under other output forms too, and excludes -run and -hold.
TEST(QueueTable, IdleTable) {
  EXPECT_EQ(kite("q -jobads queue-004818.ads -idle", nullptr, "KITE_NOW=1795308479"),
            "\n\n-- Jobads: queue-004818.ads @ 11/22/26 00:48:18\n"
            " ID      OWNER          UNIVERSE  CPUS MEMORY STARTS LAST_HOST\n"
            "   5.0   htcuser        Vanilla      1     64      0 \n"
            "   5.1   htcuser        Vanilla      1     64      0 \n"
            "   7.0   htcuser        Vanilla      1     64      0 \n");
  EXPECT_EQ(kite("q -jobads queue-004818.ads -af ProcId -idle 5"), "0\n1\n");
  int status = 0;
  EXPECT_EQ(kite("q -jobads queue-004818.ads -idle -hold", &status),
            "-run and -hold/held or -idle are incompatible\n");
  EXPECT_EQ(status, 1);
  const std::string dir = kite::test::scratch_dir("kite-q");
  std::string path = dir + "/idle.ads";
  std::ofstream(path)
      << "ClusterId = 12\nProcId = 0\nOwner = \"al\"\nJobStatus = 1\nJobUniverse = 7\n"
         "RequestCpus = 16\nRequestMemory = 1234567\nNumShadowStarts = 3\n"
         "LastRemoteHost = \"slot1@n1\"\n";
  EXPECT_EQ(kite("q -jobads " + path + " -idle", nullptr, "KITE_NOW=1795308479"),
            "\n\n-- Jobads: " + path +
                " @ 11/22/26 00:47:59\n"
                " ID      OWNER          UNIVERSE  CPUS MEMORY  STARTS LAST_HOST\n"
                "  12.0   al             Scheduler   16 1234567      3 slot1@n1\n");
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

TEST(QueueTable, BatchNamesGroupClusters) {
  const std::string dir = kite::test::scratch_dir("kite-q");
  std::string path = dir + "/batch.ads";
  std::ofstream(path) << "ClusterId = 10\nProcId = 0\nOwner = \"al\"\nJobBatchName = \"sweep\"\n"
                         "QDate = 1795308491\nJobStatus = 2\nTotalSubmitProcs = 1\n\n"
                         "ClusterId = 12\nProcId = 3\nOwner = \"al\"\nJobBatchName = \"sweep\"\n"
                         "QDate = 1795308499\nJobStatus = 1\nTotalSubmitProcs = 4\n";
  std::string out = kite("q -jobads " + path);
  // One row for both clusters; owner narrower than the heading: width 8.
  EXPECT_NE(
      out.find("OWNER    BATCH_NAME    SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS\n"
               "al       sweep       11/22 00:48      3      1      1      5 10.0 ... 12.3\n"),
      std::string::npos)
      << out;
  // A constraint may select part of a cluster: DONE is then unknown ("_"), not 4 - 1.
  out = kite("q -jobads " + path + " -constraint 'JobStatus == 1'");
  EXPECT_NE(out.find("al       sweep       11/22 00:48      _      _      1      4 12.3\n"),
            std::string::npos)
      << out;
}

// A DAGMan job's row sums up its nodes: RUN/IDLE/HOLD from the node jobs, DONE and TOTAL from
// the DAGMan job's DAG_NodesDone / DAG_NodesTotal, JOB_IDS spanning the nodes; the DAGMan job
// itself (scheduler universe) is not in the totals.
TEST(QueueTable, DagNodesFoldIntoTheirDagman) {
  const std::string dir = kite::test::scratch_dir("kite-q");
  std::string path = dir + "/dag.ads";
  const std::string common = "Owner = \"al\"\nQDate = 1795308491\n";
  std::ofstream(path) << common
                      << "ClusterId = 20\nProcId = 0\nJobUniverse = 7\nJobStatus = 2\n"
                         "JobBatchName = \"work.dag+20\"\nDAG_NodesTotal = 5\nDAG_NodesDone = 2\n"
                         "TotalSubmitProcs = 1\n\n"
                      << common
                      << "ClusterId = 21\nProcId = 0\nJobUniverse = 5\nJobStatus = 2\n"
                         "DAGManJobId = 20\nDAGNodeName = \"A\"\nJobBatchName = \"work.dag+20\"\n\n"
                      << common << "ClusterId = 22\nProcId = 0\nJobStatus = 1\nDAGManJobId = 20\n\n"
                      << common << "ClusterId = 22\nProcId = 1\nJobStatus = 1\nDAGManJobId = 20\n\n"
                      << common
                      << "ClusterId = 30\nProcId = 0\nJobUniverse = 7\nJobStatus = 2\n"
                         "DAG_NodesTotal = 3\nDAG_NodesDone = 0\n";
  std::string out = kite("q -jobads " + path);
  const std::string blank6 = "     _";
  std::string want =
      std::string("OWNER    BATCH_NAME     SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS\n") +
      "al       work.dag+20  11/22 00:48      2      1      2      5 21.0 ... 22.1\n" +
      "al       DAG: 30      11/22 00:48 " + blank6 + " " + blank6 + " " + blank6 +
      "      3 0.0\n\nTotal for query: 3 jobs; 0 completed, 0 removed, 2 idle, 1 "
      "running, 0 held, 0 suspended";
  EXPECT_NE(out.find(want), std::string::npos) << out;
}

TEST(QueueTable, JsonOutputReadsBack) {
  const std::string dir = kite::test::scratch_dir("kite-q");
  std::string path = dir + "/queue.json";
  std::ofstream(path) << kite("q -jobads queue-004818.ads -json");
  EXPECT_EQ(kite("q -jobads " + path + " -nobatch"),
            expected_for_jobads(observed("condor_q.nobatch.txt"), path));
}

TEST(QueueTable, BadInputIsAClearError) {
  int status = 0;
  std::string out = kite("q -jobads /nonexistent.ads", &status);
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("Can't open file of ClassAds: /nonexistent.ads"), std::string::npos) << out;
  const std::string dir = kite::test::scratch_dir("kite-q");
  std::string path = dir + "/bad.ads";
  std::ofstream(path) << "ClusterId = 1\n\nProcId = (1 +\n";
  out = kite("q -jobads " + path, &status);
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find(path + ": line 3"), std::string::npos) << out;
  out = kite("q -jobads queue-004818.ads -constraint 'JobStatus =='", &status);
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("is not a valid constraint"), std::string::npos) << out;
  out = kite("history -file history.ads -limit zero", &status);
  EXPECT_EQ(status, 1);
}

TEST(HistoryTable, ForwardsIsOldestFirst) {
  EXPECT_EQ(kite("history -file history.ads -forwards -match 2 -af ClusterId ProcId"),
            "2 1\n2 0\n");
  EXPECT_EQ(kite("history -file history.ads 6 -af ClusterId ProcId JobStatus"), "6 0 3\n6 1 3\n");
}

TEST(QueueTable, AdsWithoutIdsLeaveTheIdBlank) {
  const std::string dir = kite::test::scratch_dir("kite-q");
  std::string path = dir + "/noid.ads";
  std::ofstream(path) << "Owner = \"x\"\nJobStatus = 1\nServerTime = 1795308498\n";
  std::string out = kite("q -jobads " + path + " -nobatch");
  // Blank ID (5 + 3) and blank SUBMITTED (11) and RUN_TIME (12) cells keep their widths.
  EXPECT_NE(out.find("\n         x" + std::string(13 + 1 + 11 + 1 + 12 + 1, ' ') + "I "),
            std::string::npos)
      << out;
}

TEST(HistoryTable, ConstraintAndLimit) {
  std::string out = kite("history -file history.ads -constraint 'JobStatus == 4' -limit 2");
  EXPECT_EQ(out,
            " ID          OWNER            SUBMITTED   RUN_TIME   ST   COMPLETED CMD\n"
            "8.0          htcuser        11/22 00:49   0+00:00:05 C  11/22 00:49 sleep 4\n"
            "3.0          htcuser        11/22 00:47   0+00:00:39 C  11/22 00:48 sleep 30\n");
}

}  // namespace
