// Unit tests of the configuration language: syntax, macros, conditionals, includes, subsystem and
// per-slot lookups, defaults, and errors naming file and line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "policy/config/config.h"
#include "tests/policy/config/config_helpers.h"

using kite::config::Config;
using kite::config::Entry;
using kite::config::Status;
using kite::config::testing::error_of;
using kite::config::testing::get;
using kite::config::testing::load;
using kite::config::testing::raw;

namespace {

TEST(ConfigSyntax, AssignmentsCommentsWhitespaceCase) {
  Config c = load(
      "# comment\n"
      "   # indented comment\n"
      "\n"
      "  Foo   =   bar baz   \n"
      "EMPTY =\n"
      "x=1\n"
      "[Section header]\n"
      "HASH = a # not a comment\n");
  EXPECT_EQ(raw(c, "FOO"), "bar baz");
  EXPECT_EQ(raw(c, "foo"), "bar baz");
  EXPECT_EQ(raw(c, "EMPTY"), "");
  EXPECT_EQ(raw(c, "X"), "1");
  EXPECT_EQ(raw(c, "HASH"), "a # not a comment");
  Entry e;
  ASSERT_TRUE(c.lookup("foo", &e));
  EXPECT_EQ(e.name, "Foo");
  EXPECT_EQ(e.source, "t.conf, line 4");
}

TEST(ConfigSyntax, LineContinuation) {
  Config c = load(
      "START = (KeyboardIdle > 15 * $(MINUTE)) && \\\n"
      "((LoadAvg - CondorLoadAvg) <= 0.3)\n"
      "A = $(B) \\\n"
      "# $(C)\n"
      "$(D)\n"
      "A2 = $(B) \\\n"
      "# $(C) \\\n"
      "$(D)\n"
      "LAST = x\n");
  EXPECT_EQ(raw(c, "START"),
            "(KeyboardIdle > 15 * $(MINUTE)) && ((LoadAvg - CondorLoadAvg) <= 0.3)");
  EXPECT_EQ(raw(c, "A"), "$(B) $(D)");
  EXPECT_EQ(raw(c, "A2"), "$(B) $(D)");
  Entry e;
  ASSERT_TRUE(c.lookup("LAST", &e));
  EXPECT_EQ(e.source, "t.conf, line 9");
}

TEST(ConfigSyntax, MultiLineValues) {
  Config c = load(
      "JOB_ROUTER_DEFAULTS @=jrd\n"
      "  [\n"
      "    MaxJobs = 200;\n"
      "  ]\n"
      "  @jrd\n"
      "AFTER = 1\n");
  EXPECT_EQ(raw(c, "JOB_ROUTER_DEFAULTS"), "[\nMaxJobs = 200;\n]");  // lines lose their blanks
  EXPECT_EQ(raw(c, "AFTER"), "1");
  EXPECT_NE(error_of("X @=end\nline\n").find("t.conf, line 1: multi-line value"),
            std::string::npos);
}

TEST(ConfigMacros, ExpansionDefaultsAndLateBinding) {
  Config c = load(
      "A = xxx\n"
      "C = $(A)\n"
      "A = yyy\n"
      "M = $(NUMCPUS)-1\n"
      "N = $(NUMCPUS:4)-1\n"
      "O = $(NUMCPUS:$(A))-1\n"
      "P = $$(Memory) and $$ and $(A)\n"
      "Q = $(A:\n");
  EXPECT_EQ(get(c, "C"), "yyy");
  EXPECT_EQ(get(c, "M"), "-1");
  EXPECT_EQ(get(c, "N"), "4-1");
  EXPECT_EQ(get(c, "O"), "yyy-1");
  EXPECT_EQ(get(c, "P"), "$$(Memory) and $$ and yyy");
  EXPECT_EQ(get(c, "Q"), "$(A:");
}

TEST(ConfigMacros, SelfReferenceIsImmediate) {
  Config c = load(
      "A = xxx\n"
      "B = $(A)\n"
      "A = $(A)yyy\n"
      "A = $(A)zzz\n"
      "START = $(START) && Owner != \"x\"\n"
      "NEW = $(NEW:first) second\n");
  EXPECT_EQ(raw(c, "A"), "xxxyyyzzz");
  EXPECT_EQ(get(c, "B"), "xxxyyyzzz");
  EXPECT_EQ(raw(c, "START"), "True && Owner != \"x\"");
  EXPECT_EQ(raw(c, "NEW"), "first second");
}

TEST(ConfigMacros, DoubleIndirection) {
  Config c = load("TRIGGER = MEM\nMEM = big\nX = $($(TRIGGER))\n");
  EXPECT_EQ(get(c, "X"), "big");
}

TEST(ConfigMacros, Env) {
  setenv("KITE_TEST_ENV_VAR", "hello", 1);
  unsetenv("KITE_TEST_ENV_UNSET");
  Config c = load(
      "A = $ENV(KITE_TEST_ENV_VAR)/x\n"
      "B = $ENV(KITE_TEST_ENV_UNSET:fallback)\n"
      "C = $ENV(KITE_TEST_ENV_UNSET)\n");
  EXPECT_EQ(get(c, "A"), "hello/x");
  EXPECT_EQ(get(c, "B"), "fallback");
  EXPECT_EQ(get(c, "C"), "UNDEFINED");
}

TEST(ConfigMacros, RandomInteger) {
  Config c = load("R = $RANDOM_INTEGER(10, 20, 5)\nU = $UNKNOWN_FN(1)\n");
  std::string v = get(c, "R");
  EXPECT_TRUE(v == "10" || v == "15" || v == "20") << v;
  EXPECT_EQ(get(c, "U"), "$UNKNOWN_FN(1)");
}

TEST(ConfigMacros, CycleIsAnErrorNamingFileAndLine) {
  std::string m = error_of("A = $(B)\nB = $(C)\nC = $(A)\n");
  EXPECT_NE(m.find("t.conf, line "), std::string::npos) << m;
  EXPECT_NE(m.find("refers to itself"), std::string::npos) << m;
}

TEST(ConfigMacros, ExponentialGrowthIsBounded) {
  std::string text = "A0 = xxxxxxxxxxxxxxxx\n";
  for (int i = 1; i < 40; ++i) {
    text += "A" + std::to_string(i) + " = $(A" + std::to_string(i - 1) + ")$(A" +
            std::to_string(i - 1) + ")\n";
  }
  std::string m = error_of(text.c_str());
  EXPECT_NE(m.find("larger than 1 MiB"), std::string::npos) << m;
  std::string self = "A = xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n";
  for (int i = 0; i < 40; ++i) self += "A = $(A)$(A)\n";
  m = error_of(self.c_str());
  EXPECT_NE(m.find("larger than 1 MiB"), std::string::npos) << m;
}

TEST(ConfigConditionals, DefinedVersionBooleansNesting) {
  Config c = load(
      "if defined MY_UNDEFINED_VARIABLE\n  X = 12\nelse\n  X = -1\nendif\n"
      "if version >= 8.1.6\n  DO_X = True\nelse\n  DO_Y = True\nendif\n"
      "if version == 25.0\n  V25 = 1\nendif\n"
      "if version < 9.0\n  OLD = 1\nendif\n"
      "if true\n T1 = 1\nendif\nif yes\n T2 = 1\nendif\nif 1\n T3 = 1\nendif\n"
      "if 0\n F1 = 1\nendif\nif no\n F2 = 1\nendif\nif False\n F3 = 1\nendif\n"
      "if ! defined X\n NX = 1\nelif defined DO_X\n ELIF = 1\nelse\n ELSE = 1\nendif\n"
      "if defined X\n if defined NOPE\n  INNER = 1\n else\n  INNER = 2\n endif\nendif\n"
      "if false\n if $(this would be an error) \n  Z = 1\n endif\n bad line ignored in "
      "skip\nendif\n"
      "B = true\nif $(B)\n FROM_MACRO = 1\nendif\nif $(UNSET_MACRO)\n EMPTY_IS_FALSE = 1\nendif\n"
      "if defined START\n START_IS_DEFAULT = 1\nendif\n");
  EXPECT_EQ(raw(c, "X"), "-1");
  EXPECT_EQ(raw(c, "DO_X"), "True");
  EXPECT_EQ(raw(c, "DO_Y"), "<undef>");
  EXPECT_EQ(raw(c, "V25"), "1");
  EXPECT_EQ(raw(c, "OLD"), "<undef>");
  EXPECT_EQ(raw(c, "T1") + raw(c, "T2") + raw(c, "T3"), "111");
  EXPECT_EQ(raw(c, "F1") + raw(c, "F2") + raw(c, "F3"), "<undef><undef><undef>");
  EXPECT_EQ(raw(c, "ELIF"), "1");
  EXPECT_EQ(raw(c, "NX"), "<undef>");
  EXPECT_EQ(raw(c, "ELSE"), "<undef>");
  EXPECT_EQ(raw(c, "INNER"), "2");
  EXPECT_EQ(raw(c, "Z"), "<undef>");
  EXPECT_EQ(raw(c, "FROM_MACRO"), "1");
  EXPECT_EQ(raw(c, "EMPTY_IS_FALSE"), "<undef>");
  EXPECT_EQ(raw(c, "START_IS_DEFAULT"), "1");
}

TEST(ConfigConditionals, Errors) {
  EXPECT_NE(error_of("A = 1\nif true\nB = 2\n").find("t.conf, line 2: if without matching endif"),
            std::string::npos);
  EXPECT_NE(error_of("endif\n").find("t.conf, line 1: endif without if"), std::string::npos);
  EXPECT_NE(error_of("else\n").find("t.conf, line 1: else without if"), std::string::npos);
  EXPECT_NE(error_of("if true\nelse\nelse\nendif\n").find("t.conf, line 3: second else"),
            std::string::npos);
  EXPECT_NE(error_of("if true\nelse\nelif true\nendif\n").find("t.conf, line 3: elif after else"),
            std::string::npos);
  EXPECT_NE(error_of("if maybe\nendif\n").find("t.conf, line 1: if condition 'maybe'"),
            std::string::npos);
  EXPECT_NE(error_of("if version >= x\nendif\n").find("t.conf, line 1: bad version"),
            std::string::npos);
  EXPECT_NE(
      error_of("A = 1\nerror : stuff is needed!\n").find("t.conf, line 2: ERROR: stuff is needed!"),
      std::string::npos);
}

TEST(ConfigErrors, BadLinesNameFileAndLine) {
  EXPECT_NE(error_of("A = 1\nthis is not an assignment\n").find("t.conf, line 2: syntax error"),
            std::string::npos);
  EXPECT_NE(error_of("A B = 1\n").find("t.conf, line 1: syntax error"), std::string::npos);
  EXPECT_NE(error_of("A +- 1\n").find("t.conf, line 1: syntax error"), std::string::npos);
  EXPECT_NE(error_of("\n\nBAD-NAME = 1\n").find("t.conf, line 3: invalid macro name"),
            std::string::npos);
  EXPECT_NE(error_of("use POLICY : NoSuchThing\n")
                .find("t.conf, line 1: unknown template 'use POLICY:NoSuchThing'"),
            std::string::npos);
  EXPECT_NE(error_of("use COLOR : Red\n").find("t.conf, line 1: unknown template category"),
            std::string::npos);
  EXPECT_NE(error_of("use POLICY\n").find("t.conf, line 1: expected 'use CATEGORY"),
            std::string::npos);
  EXPECT_NE(error_of("include command : /bin/true\n").find("is not supported here"),
            std::string::npos);
  EXPECT_NE(error_of("include : /bin/echo hi |\n").find("is not supported here"),
            std::string::npos);
}

TEST(ConfigWarnings, AreCollected) {
  Config c;
  ASSERT_TRUE(c.load_string("warning : careful\n", "w.conf").ok);
  ASSERT_EQ(c.warnings().size(), 1u);
  EXPECT_EQ(c.warnings()[0], "w.conf, line 1: WARNING: careful");
}

TEST(ConfigFiles, IncludesDirectoryAndOrder) {
  Config c;
  Status st = c.load_main(KITE_SOURCE_DIR "/tests/data/config/startd_policy.conf", true);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(raw(c, "FROM_INCLUDE"), "yes");
  EXPECT_EQ(raw(c, "NEW_ENOUGH"), "True");
  EXPECT_EQ(raw(c, "ORDER"), " a b");  // 10-a then 20-b; 30-c.conf~ and .hidden excluded
  Entry e;
  ASSERT_TRUE(c.lookup("FROM_INCLUDE", &e));
  EXPECT_EQ(e.source, KITE_SOURCE_DIR "/tests/data/config/included.conf, line 2");
  ASSERT_EQ(c.files().size(), 4u);
  EXPECT_EQ(c.files()[1], KITE_SOURCE_DIR "/tests/data/config/included.conf");
  // The policy file's own expressions.
  EXPECT_EQ(raw(c, "WANT_HOLD"), "(JobUniverse != 1 && $(MEMORY_EXCEEDED))");
  EXPECT_EQ(get(c, "WANT_HOLD_REASON"),
            "ifThenElse((isDefined(MemoryUsage) && MemoryUsage > RequestMemory), \"memory usage "
            "exceeded request_memory\", UNDEFINED)");
}

TEST(ConfigFiles, MissingFilesAndUnreadableIncludes) {
  Config a;
  EXPECT_TRUE(a.load_main("/nonexistent/kite.conf", false).ok);
  Config b;
  Status st = b.load_main("/nonexistent/kite.conf", true);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("/nonexistent/kite.conf"), std::string::npos);
  Config c;
  st = c.load_file(KITE_SOURCE_DIR "/tests/data/config/bad_include.conf");
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.message.find("bad_include.conf, line 2: include: cannot read"), std::string::npos)
      << st.message;
  EXPECT_NE(st.message.find("no-such-file.conf"), std::string::npos);
  Config d;
  st = d.load_main(KITE_SOURCE_DIR "/tests/data/config/cycle.conf", true);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.message.find("cycle.conf, line "), std::string::npos) << st.message;
  Config e;
  st = e.load_string("include : " KITE_SOURCE_DIR "/tests/data/config\n", "dir");
  EXPECT_FALSE(st.ok);
}

TEST(ConfigFiles, IncludeRecursionIsBounded) {
  char tmpl[] = "/tmp/kite_cfg_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string path = std::string(tmpl) + "/self.conf";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("include : self.conf\n", f);
  fclose(f);
  Config c;
  Status st = c.load_file(path);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.message.find("nested too deeply"), std::string::npos) << st.message;
  remove(path.c_str());
  rmdir(tmpl);
}

TEST(ConfigLookup, SubsystemPrefix) {
  Config c("MASTER");
  ASSERT_TRUE(c.load_string("FILESPEC = A\nMASTER.FILESPEC = B\nUSEFILE = mydir/$(FILESPEC)\n").ok);
  EXPECT_EQ(get(c, "USEFILE"), "mydir/B");
  EXPECT_EQ(get(c, "SUBSYSTEM"), "MASTER");
  Config s;  // default subsystem is STARTD
  ASSERT_TRUE(s.load_string("FILESPEC = A\nMASTER.FILESPEC = B\nUSEFILE = mydir/$(FILESPEC)\n"
                            "STARTD.UPDATE_INTERVAL = 7\n")
                  .ok);
  EXPECT_EQ(get(s, "USEFILE"), "mydir/A");
  EXPECT_EQ(get(s, "SUBSYSTEM"), "STARTD");
  EXPECT_EQ(get(s, "UPDATE_INTERVAL"), "7");
  EXPECT_EQ(get(s, "MASTER.FILESPEC"), "B");
}

TEST(ConfigLookup, SlotAndVanillaHelpers) {
  Config c = load(
      "START = general\n"
      "SLOT_TYPE_2_START = type2\n"
      "SLOT3_START = slot3\n"
      "SUSPEND_VANILLA = vanilla\n"
      "SLOT3_SUSPEND_VANILLA = slot3vanilla\n");
  Entry e;
  ASSERT_TRUE(c.lookup_slot("START", 1, 1, &e));
  EXPECT_EQ(e.value, "general");
  ASSERT_TRUE(c.lookup_slot("START", 1, 2, &e));
  EXPECT_EQ(e.value, "type2");
  ASSERT_TRUE(c.lookup_slot("START", 3, 2, &e));
  EXPECT_EQ(e.value, "slot3");
  EXPECT_EQ(e.name, "SLOT3_START");
  ASSERT_TRUE(c.lookup_vanilla("SUSPEND", true, 1, 1, &e));
  EXPECT_EQ(e.value, "vanilla");
  ASSERT_TRUE(c.lookup_vanilla("SUSPEND", true, 3, 1, &e));
  EXPECT_EQ(e.value, "slot3vanilla");
  ASSERT_TRUE(c.lookup_vanilla("SUSPEND", false, 3, 1, &e));
  EXPECT_EQ(e.value, "False");
  EXPECT_EQ(e.source, "<Default>");
  EXPECT_FALSE(c.lookup_slot("NOT_A_KNOB", 1, 1, &e));
}

TEST(ConfigDefaults, EmptyConfigValues) {
  Config c;
  struct {
    const char* name;
    const char* value;
  } cases[] = {
      {"START", "True"},
      {"SUSPEND", "False"},
      {"CONTINUE", "True"},
      {"PREEMPT", "False"},
      {"KILL", "False"},
      {"WANT_SUSPEND", "False"},
      {"WANT_VACATE", "True"},
      {"IS_OWNER", "False"},
      {"RANK", "0"},
      {"MaxJobRetirementTime", "0"},
      {"CLAIM_WORKLIFE", "1200"},
      {"MATCH_TIMEOUT", "120"},
      {"KILLING_TIMEOUT", "30"},
      {"UPDATE_INTERVAL", "300"},
      {"POLLING_INTERVAL", "5"},
      {"NUM_CPUS", "1"},
      {"MINUTE", "60"},
      {"HOUR", "3600"},
      {"StateTimer", "(time() - EnteredCurrentState)"},
      {"ActivityTimer", "(time() - EnteredCurrentActivity)"},
      {"ActivationTimer", "ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0)"},
      {"CPUIdle", "((LoadAvg - CondorLoadAvg) <= 0.3)"},
      {"KeyboardBusy", "(KeyboardIdle < 60)"},
      {"StartIdleTime", "15 * 60"},
      {"SUBSYSTEM", "STARTD"},
  };
  for (auto& k : cases) EXPECT_EQ(get(c, k.name), k.value) << k.name;
  c.set_detected("DETECTED_CPUS", "8");
  EXPECT_EQ(get(c, "NUM_CPUS"), "8");
  Entry e;
  ASSERT_TRUE(c.lookup("DETECTED_CPUS", &e));
  EXPECT_EQ(e.source, "<Detected>");
  ASSERT_TRUE(c.lookup("start", &e));
  EXPECT_EQ(e.source, "<Default>");
  EXPECT_TRUE(e.is_default);
}

TEST(ConfigDefaults, SettingTheDefaultValueKeepsDefaultSource) {
  Config c = load("KILL = False\nKILL2 = False\nSTART = true\nDAEMON_LIST = master\n");
  Entry e;
  ASSERT_TRUE(c.lookup("KILL", &e));
  EXPECT_EQ(e.source, "<Default>");
  ASSERT_TRUE(c.lookup("START", &e));  // true/false match in any case, keeping "True"
  EXPECT_EQ(e.source, "<Default>");
  EXPECT_EQ(e.value, "True");
  ASSERT_TRUE(c.lookup("DAEMON_LIST", &e));  // other values must match exactly
  EXPECT_EQ(e.source, "t.conf, line 4");
}

TEST(ConfigRobustness, OddInputsDoNotCrash) {
  const char* inputs[] = {
      "",
      "\\",
      "A = \\",
      "$(",
      "A = $(",
      "A = $(B",
      "A = )$(",
      "if",
      "if !",
      "if defined",
      "use :",
      "use POLICY :",
      "use POLICY : PREEMPT_IF(",
      "include",
      "include :",
      "@=x",
      "A @=",
      "A = $(A:$(A:$(A)))",
      "\r\n\r\n",
      "A=1\r\nB=$(A)\r\n",
      "use POLICY : Desktop()",
      "A = $ENV(",
      "A = $RANDOM_INTEGER(5)",
      "A = $RANDOM_INTEGER(a,b,c)",
      "A = $RANDOM_CHOICE()",
  };
  for (const char* in : inputs) {
    Config c;
    Status st = c.load_string(in, "odd");
    if (st.ok) st = c.finish();
    std::string v;
    c.get("A", &v);
    // Odd input either loads or fails with a message that says what is wrong.
    if (!st.ok) EXPECT_FALSE(st.message.empty()) << in;
  }
}

}  // namespace

namespace {

// HTCondor's expand_macro (config.cpp) replaces $(DOLLAR) by a literal '$' after every other
// expansion, so "$(DOLLAR)(A)" stays "$(A)" and is not expanded again.
TEST(ConfigMacros, DollarIsALiteralDollarSign) {
  Config c = load(
      "A = 1\n"
      "X = $(DOLLAR)(A)\n"
      "Y = $(X) $(dollar)$(DOLLAR)\n");
  EXPECT_EQ(get(c, "X"), "$(A)");
  EXPECT_EQ(get(c, "Y"), "$(A) $$");
}

// HTCondor's evaluate_macro_func (config.cpp, MACRO_ID_NORMAL) takes the default when the
// macro is undefined or its value, as written, is empty: `if (pcolon && (!tvalue ||
// !tvalue[0])) tvalue = pcolon;`.
TEST(ConfigMacros, DefaultAlsoReplacesAnEmptyValue) {
  Config c = load(
      "E =\n"
      "F = $(NOTHING)\n"
      "X = $(E:def)\n"
      "Y = [$(F:def)]\n");
  EXPECT_EQ(get(c, "X"), "def");
  EXPECT_EQ(get(c, "Y"), "[]");  // F's value is not empty before expansion
}

}  // namespace

namespace {

// "include : COMMAND |" (or "include command : COMMAND"): "the command line will be executed,
// and the output will be parsed and incorporated into the configuration"
// (introduction-to-configuration); the command runs through the runner the caller gives. With
// "into <cache-file>": "If that file exists, it will be read and the command line will not be
// executed"; "If the command line returns a non-zero exit code, configuration will abort ...
// unless the ifexist keyword is also specified".
kite::config::Status fake_runner(const std::string& command, std::string* out) {
  if (command == "/bin/gen X") {
    *out = "X = from command\nY = $(X) too\n";
    return Status::Ok();
  }
  return Status::Error("command terminated with exit code 1");
}

TEST(ConfigIncludeCommand, OutputIsReadAsConfiguration) {
  Config c;
  c.set_command_runner(fake_runner);
  ASSERT_TRUE(c.load_string("include : /bin/gen X |\nZ = [$(Y)]\n", "t.conf").ok);
  ASSERT_TRUE(c.finish().ok);
  EXPECT_EQ(get(c, "Z"), "[from command too]");
  Config d;
  d.set_command_runner(fake_runner);
  EXPECT_TRUE(d.load_string("include command : /bin/gen X\n", "t.conf").ok);
  EXPECT_EQ(get(d, "X"), "from command");
  Config e;
  e.set_command_runner(fake_runner);
  Status st = e.load_string("\ninclude : /bin/false |\n", "t.conf");
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("t.conf, line 2"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("exit code 1"), std::string::npos) << st.message;
  Config f;
  f.set_command_runner(fake_runner);
  EXPECT_TRUE(f.load_string("include ifexist command : /bin/false\nA = 1\n", "t.conf").ok);
  EXPECT_EQ(get(f, "A"), "1");
  char cache[] = "/tmp/kite-include-cache-XXXXXX";
  int fd = mkstemp(cache);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "C = cached\n", 11), 11);
  close(fd);
  Config g;
  g.set_command_runner(fake_runner);
  EXPECT_TRUE(
      g.load_string(std::string("include command into ") + cache + " : /bin/gen X\n", "t.conf").ok);
  EXPECT_EQ(get(g, "C"), "cached");
  std::string x;
  EXPECT_FALSE(g.get("X", &x));  // the command did not run
  unlink(cache);
  Config none;  // no runner: an error, not a crash
  EXPECT_FALSE(none.load_string("include : /bin/gen X |\n", "t.conf").ok);
}

TEST(ConfigIncludeCommand, IntoACacheFileThatIsMissingWritesTheOutputThere) {
  // "If that file does not exist, the output of the command line will be written into it and
  // then the cache file will be read"; a failing command writes none.
  std::vector<std::pair<std::string, std::string>> written;
  auto writer = [&](const std::string& path, const std::string& text) {
    written.emplace_back(path, text);
    return Status::Ok();
  };
  Config c;
  c.set_command_runner(fake_runner);
  c.set_cache_writer(writer);
  ASSERT_TRUE(c.load_string("include command into /nonexistent/cache : /bin/gen X\n"
                            "include ifexist command into /nonexistent/c2 : /bin/false\n",
                            "t.conf")
                  .ok);
  EXPECT_EQ(get(c, "X"), "from command");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].first, "/nonexistent/cache");
  EXPECT_EQ(written[0].second, "X = from command\nY = $(X) too\n");
  Config d;
  d.set_command_runner(fake_runner);
  d.set_cache_writer(
      [](const std::string&, const std::string&) { return Status::Error("Permission denied"); });
  Status st = d.load_string("include command into /ro/cache : /bin/gen X\n", "t.conf");
  EXPECT_EQ(st.message, "t.conf, line 1: include: /ro/cache: Permission denied");
}

}  // namespace
