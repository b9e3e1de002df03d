// The configuration behaviours real sites' files rely on, each from HTCondor's documented or
// observed rules: the old `NAME : value` form, `+=`, ':'-prefixed if-body lines, @= blocks
// without blanks, defaults keeping their spelling, built-in defaults other values extend,
// SUBSYS. self-references, and the templates sites use most.
#include <gtest/gtest.h>

#include "policy/config/config.h"
#include "tests/policy/config/config_helpers.h"

namespace kite::config {
namespace {

using testing::error_of;
using testing::get;
using testing::load;
using testing::raw;

std::string source(const Config& c, const char* name) {
  Entry e;
  return c.lookup(name, &e) ? e.source : "<undef>";
}

TEST(ConfigGaps, ColonIsTheOldAssignment) {
  Config c = load(
      "START : KeyboardIdle > 15\n"
      "RunBenchmarks:False\n"
      "URL : http://a:80/x?y=1\n"
      "if true\n"
      "  IN_IF : yes\n"
      "endif\n"
      "warning : still a keyword\n");
  EXPECT_EQ(raw(c, "START"), "KeyboardIdle > 15");
  EXPECT_EQ(source(c, "START"), "t.conf, line 1");
  EXPECT_EQ(raw(c, "RunBenchmarks"), "False");
  EXPECT_EQ(raw(c, "URL"), "http://a:80/x?y=1");
  EXPECT_EQ(raw(c, "IN_IF"), "yes");
  ASSERT_EQ(c.warnings().size(), 4u);  // HTCondor warns of the old form, but for RunBenchmarks
  EXPECT_EQ(c.warnings()[0],
            "t.conf, line 1: obsolete use of ':' for parameter assignment at START : "
            "KeyboardIdle > 15");
  EXPECT_EQ(c.warnings()[3], "t.conf, line 7: WARNING: still a keyword");
  EXPECT_EQ(raw(load("use ROLE : Execute\n"), "DAEMON_LIST"), "MASTER STARTD");  // still `use`
}

TEST(ConfigGaps, PlusEqualsAppends) {
  Config c = load(
      "A = x\nA += y\n"
      "B += y\n"
      "C = a\nC +,= b\n"
      "D = a\nD +&&= b\n"
      "E = \nE += z\n"
      "DAEMON_LIST += STARTD\n");
  EXPECT_EQ(raw(c, "A"), "x y");
  EXPECT_EQ(raw(c, "B"), "y");  // nothing to append to: no separator
  EXPECT_EQ(raw(c, "C"), "a,b");
  EXPECT_EQ(raw(c, "D"), "a && b");
  EXPECT_EQ(raw(c, "E"), "z");
  EXPECT_EQ(raw(c, "DAEMON_LIST"), "MASTER STARTD");  // appends to the built-in default
}

TEST(ConfigGaps, ColonStartingAnIfBodyLineIsIgnored) {
  Config c = load("if true\n:A = 1\nendif\n:if false\n:B = 2\n:endif\n");
  EXPECT_EQ(raw(c, "A"), "1");
  EXPECT_EQ(raw(c, "B"), "<undef>");
  EXPECT_NE(error_of(":C = 1\n").find("t.conf, line 1"), std::string::npos);  // outside an if
}

TEST(ConfigGaps, MultiLineValueLinesLoseTheirBlanks) {
  Config c = load(
      "T @=end\n"
      "\t  REQUIREMENTS x =!= undefined  \n"
      "\n"
      "    # a comment line\n"
      "\tSET y 1\n"
      "  @end\n"
      "if false\n"
      "  SKIPPED @=end\n"
      "    if defined MY.x\n"
      "    else\n"
      "  @end\n"
      "endif\n"
      "AFTER = 1\n");
  EXPECT_EQ(raw(c, "T"), "REQUIREMENTS x =!= undefined\nSET y 1");
  EXPECT_EQ(raw(c, "SKIPPED"), "<undef>");  // skipped with its lines, if/else included
  EXPECT_EQ(raw(c, "AFTER"), "1");
}

TEST(ConfigGaps, ValueEqualToADefaultKeepsTheDefaultSpelling) {
  Config c = load(
      "SUSPEND = FALSE\n"
      "NEGOTIATOR_USE_SLOT_WEIGHTS = True\n"
      "X = $(SUSPEND) || $(NEGOTIATOR_USE_SLOT_WEIGHTS)\n"
      "UPDATE_INTERVAL = 300\n");
  EXPECT_EQ(raw(c, "SUSPEND"), "False");
  EXPECT_EQ(source(c, "SUSPEND"), "<Default>");
  EXPECT_EQ(raw(c, "NEGOTIATOR_USE_SLOT_WEIGHTS"), "true");
  EXPECT_EQ(get(c, "X"), "False || true");  // also where expanded into another value
  EXPECT_EQ(source(c, "UPDATE_INTERVAL"), "<Default>");
  Config u = load("ENABLE_URL_TRANSFERS = TRUE\nUSE_PID_NAMESPACES = False\n");
  EXPECT_EQ(raw(u, "ENABLE_URL_TRANSFERS"), "true");  // starter.rst: defaults to true
  EXPECT_EQ(raw(u, "USE_PID_NAMESPACES"), "false");
  Config d = load("SCHEDD.SUSPEND = FALSE\nSUSPEND = TRUE\n");  // prefixed, or not equal
  EXPECT_EQ(raw(d, "SCHEDD.SUSPEND"), "FALSE");
  EXPECT_EQ(raw(d, "SUSPEND"), "TRUE");
  EXPECT_EQ(source(d, "SUSPEND"), "t.conf, line 2");
}

TEST(ConfigGaps, BuiltInDefaultsOtherValuesExtend) {
  Config c = load(
      "FILETRANSFER_PLUGINS = $(FILETRANSFER_PLUGINS), $(LIBEXEC)/my_plugin\n"
      "SYSTEM_JOB_MACHINE_ATTRS = $(SYSTEM_JOB_MACHINE_ATTRS) CloudInstanceID\n"
      "LIBEXEC = /usr/libexec/condor\n");
  std::string v = raw(c, "FILETRANSFER_PLUGINS");
  EXPECT_EQ(v.rfind("$(LIBEXEC)/curl_plugin, ", 0), 0u) << v;
  const std::string tail = ", $(STASH_PLUGIN), $(LIBEXEC)/my_plugin";
  EXPECT_EQ(v.substr(v.size() - tail.size()), tail) << v;
  EXPECT_NE(get(c, "FILETRANSFER_PLUGINS").find("/usr/libexec/condor/stash_plugin, "),
            std::string::npos);
  EXPECT_EQ(raw(c, "SYSTEM_JOB_MACHINE_ATTRS"), "Cpus,SlotWeight CloudInstanceID");
}

TEST(ConfigGaps, SubsystemSelfReferenceOnlyForTheOwnSubsystem) {
  Config c = load("X = a\nSTARTD.X = $(X) b\nSCHEDD.X = $(X) c\n");  // this config: STARTD
  EXPECT_EQ(raw(c, "STARTD.X"), "a b");
  EXPECT_EQ(raw(c, "SCHEDD.X"), "$(X) c");
}

TEST(ConfigGaps, TemplatesSitesUse) {
  Config c = load(
      "CONDOR_HOST = cm.example\nuse SECURITY : recommended\n"
      "use ROLE : get_htcondor_execute\n");
  EXPECT_EQ(raw(c, "DAEMON_LIST"), "MASTER STARTD");
  EXPECT_EQ(raw(c, "SEC_DEFAULT_ENCRYPTION"), "required");
  EXPECT_EQ(raw(c, "ALLOW_READ"), "*");
  EXPECT_EQ(raw(c, "SECURITY_MODEL"), "24.0");
  EXPECT_EQ(get(c, "TRUST_DOMAIN"), "cm.example");
  EXPECT_EQ(source(c, "TRUST_DOMAIN").rfind("t.conf, line 3, ", 0), 0u);

  Config d = load("use POLICY : DESKTOP_IDLE(8, 17)\n");
  EXPECT_EQ(raw(d, "WorkdayEndHour"), "17");
  EXPECT_EQ(raw(d, "START"),
            "((KeyboardIdle > $(StartIdleTime)) && $(CPUIdle)) || "
            "($(RunJobsHours))");

  Config e = load("use FEATURE : AssignAccountingGroup(/etc/acct.map, false)\n");
  EXPECT_EQ(raw(e, "JOB_TRANSFORM_AssignAccountingGroup").find("COPY Owner = AcctGroupUser\n"), 0u);
  EXPECT_EQ(raw(e, "SUBMIT_REQUIREMENT_NAMES"), " AssignAccountingGroup");  // check off
}

TEST(ConfigGaps, UnknownTemplateOrUnreadableLineStopsTheFile) {
  EXPECT_NE(error_of("A = 1\nuse FEATURE : NoSuchFeature\nB = 2\n")
                .find("t.conf, line 2: unknown template 'use FEATURE:NoSuchFeature'"),
            std::string::npos);
  EXPECT_NE(error_of("A = 1\n\nthis line is not config\n").find("t.conf, line 3: syntax error"),
            std::string::npos);
  EXPECT_NE(error_of("A += \nB +x= 1\n").find("t.conf, line 2"), std::string::npos);
}

}  // namespace
}  // namespace kite::config
