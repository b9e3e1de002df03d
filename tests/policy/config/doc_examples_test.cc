// The examples of HTCondor's configuration reference (introduction-to-configuration, "Function
// Macros in Configuration" and "Conditionals in Configuration"), each checked as the text gives
// it. Where the text and HTCondor differ, HTCondor's behaviour is expected and the test says so.
#include <gtest/gtest.h>

#include <string>

#include "policy/config/config.h"
#include "tests/policy/config/config_helpers.h"

using kite::config::testing::get;
using kite::config::testing::load;

namespace {

TEST(ConfigDocExamples, IntSubstrStringAndEval) {
  auto c = load(
      "X = 2\nY = 6\nXYArea = $(X) * $(Y)\n"
      "I1 = $INT(XYArea)\nI2 = $INT(XYArea,%04d)\nI3 = $INT(XYArea,Area=%d)\n"
      "Name = abcdef\n"
      "S1 = $SUBSTR(Name, 2)\nS2 = $SUBSTR(Name, 0, -2)\nS3 = $SUBSTR(Name, 1, 3)\n"
      "S4 = $SUBSTR(Name, -1)\nS5 = $SUBSTR(Name, 4, -3)\n"
      "FULL_HOST = host.DOMAIN\nLCFullHostname = toLower(\"$(FULL_HOST)\")\n"
      "T1 = $STRING(LCFullHostname)\nT2 = $STRING(LCFullHostname,Name: %s)\n"
      "slist = \"a,B,c\"\nlcslist = tolower($(slist))\nlist = split($(slist))\n"
      "clist = size($(list)) * 10\nsemilist = join(\";\",split($(lcslist)))\n"
      "E1 = $EVAL(slist)\nE2 = $EVAL(lcslist)\nE3 = $EVAL(list)\nE4 = $EVAL(clist)\n"
      "E5 = $EVAL(semilist)\n");
  EXPECT_EQ(get(c, "I1"), "12");
  EXPECT_EQ(get(c, "I2"), "0012");
  EXPECT_EQ(get(c, "I3"), "Area=12");
  EXPECT_EQ(get(c, "S1"), "cdef");
  EXPECT_EQ(get(c, "S2"), "abcd");
  EXPECT_EQ(get(c, "S3"), "bcd");
  EXPECT_EQ(get(c, "S4"), "f");
  EXPECT_EQ(get(c, "S5"), "");  // "the empty string"
  EXPECT_EQ(get(c, "T1"), "host.domain");
  EXPECT_EQ(get(c, "T2"), "Name: host.domain");
  EXPECT_EQ(get(c, "E1"), "a,B,c");
  EXPECT_EQ(get(c, "E2"), "a,b,c");
  // The text shows {"a", "B", "c"}; HTCondor unparses the list in its canonical form.
  EXPECT_EQ(get(c, "E3"), "{ \"a\",\"B\",\"c\" }");
  EXPECT_EQ(get(c, "E4"), "30");
  EXPECT_EQ(get(c, "E5"), "a;b;c");
}

TEST(ConfigDocExamples, RealChoiceAndFileNameMacros) {
  auto c = load(
      "XYArea = 2 * 6\n"
      // The text says "%16G" by default; HTCondor formats with "%.16G", and a format of its
      // own that prints no '.' gets ".0" appended (config.cpp, SPECIAL_MACRO_ID_REAL).
      "R1 = $REAL(XYArea)\nR2 = $REAL(XYArea,%.2f)\nR3 = $REAL(XYArea,%G)\n"
      "C1 = $CHOICE(1, a, b, c)\nCL = x, y, z\nC2 = $CHOICE(2, CL)\n"
      "F1 = $Fn(/tmp/simulate.exe)\nF2 = $Fx(/tmp/simulate.exe)\nF3 = $Fxb(/tmp/simulate.exe)\n"
      "F4 = $Fd(/tmp/a/simulate.exe)\nF5 = $Fdb(/tmp/a/simulate.exe)\n"
      "F6 = $Fp(/tmp/a/simulate.exe)\nF7 = $Fqa(/tmp/a/s.exe)\nF8 = $Fq(/tmp/a/s.exe)\n"
      "B1 = $BASENAME(/x/y/file.tar.gz, .tar.gz)\nB2 = $BASENAME(/x/y/file.tar.gz)\n"
      "D1 = $DIRNAME(/x/y/file.tar.gz)\n"
      "EN = $ENV(KITE_NO_SUCH_VARIABLE_XYZ:dflt)\n");
  EXPECT_EQ(get(c, "R1"), "12");
  EXPECT_EQ(get(c, "R2"), "12.00");
  EXPECT_EQ(get(c, "R3"), "12.0");
  EXPECT_EQ(get(c, "C1"), "b");
  EXPECT_EQ(get(c, "C2"), "z");
  EXPECT_EQ(get(c, "F1"), "simulate");
  EXPECT_EQ(get(c, "F2"), ".exe");
  EXPECT_EQ(get(c, "F3"), "exe");
  EXPECT_EQ(get(c, "F4"), "a/");
  EXPECT_EQ(get(c, "F5"), "a");
  EXPECT_EQ(get(c, "F6"), "/tmp/a/");
  EXPECT_EQ(get(c, "F7"), "'/tmp/a/s.exe'");
  EXPECT_EQ(get(c, "F8"), "\"/tmp/a/s.exe\"");
  EXPECT_EQ(get(c, "B1"), "file");
  EXPECT_EQ(get(c, "B2"), "file.tar.gz");
  EXPECT_EQ(get(c, "D1"), "/x/y/");
  EXPECT_EQ(get(c, "EN"), "dflt");
}

TEST(ConfigDocExamples, ConditionalsWithDefinedVersionAndElif) {
  auto c = load(
      "if defined MY_UNDEFINED_VARIABLE\n  X = 12\nelse\n  X = -1\nendif\n"
      "if version >= 8.1.6\n  DO_X = True\nelse\n  DO_Y = True\nendif\n"
      // "Current version 8.2.3 is greater than or equal to 8.2": a version this old is below
      // the reader's (25.x), so <= is false and == with an x.y is false.
      "if version <= 8.2\n  VLE = yes\nendif\n"
      "if version == 8.2\n  VEQ = yes\nelif version >= 24.0\n  V24 = yes\nelse\n  VOLD = yes\n"
      "endif\n"
      "EMPTY =\nif $(EMPTY)\n  E_TRUE = yes\nelse\n  E_FALSE = yes\nendif\n"
      "A = 1\nif !defined A\n  NOT_A = yes\nelif defined X\n  ELIF_X = yes\nendif\n"
      "if no\n  NO = set\nelif 1\n  ONE = set\nendif\n");
  EXPECT_EQ(get(c, "X"), "-1");
  EXPECT_EQ(get(c, "DO_X"), "True");
  EXPECT_EQ(get(c, "DO_Y"), "<undef>");
  EXPECT_EQ(get(c, "VLE"), "<undef>");
  EXPECT_EQ(get(c, "VEQ"), "<undef>");
  EXPECT_EQ(get(c, "V24"), "yes");
  EXPECT_EQ(get(c, "VOLD"), "<undef>");
  EXPECT_EQ(get(c, "E_TRUE"), "<undef>");  // "A value that evaluates to the empty string is
  EXPECT_EQ(get(c, "E_FALSE"), "yes");     // considered False"
  EXPECT_EQ(get(c, "NOT_A"), "<undef>");
  EXPECT_EQ(get(c, "ELIF_X"), "yes");
  EXPECT_EQ(get(c, "NO"), "<undef>");
  EXPECT_EQ(get(c, "ONE"), "set");
}

}  // namespace
