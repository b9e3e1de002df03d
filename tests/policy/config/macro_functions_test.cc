// Unit tests of the configuration language's function macros ($INT, $REAL, $STRING, $EVAL,
// $CHOICE, $SUBSTR, $DIRNAME, $BASENAME, $F...). The expected values are the examples of
// introduction-to-configuration.rst ("Function Macros in Configuration") plus edge cases.
#include <gtest/gtest.h>

#include <string>

#include "policy/config/config.h"
#include "tests/policy/config/config_helpers.h"

using kite::config::Config;
using kite::config::testing::error_of;
using kite::config::testing::get;
using kite::config::testing::load;

namespace {

// The value of V in a configuration made of `text` plus a line "V = <value>".
std::string value_of(const std::string& text, const std::string& value) {
  Config c = load(text + "V = " + value + "\n");
  return get(c, "V");
}

TEST(ConfigMacroFunctions, IntAndRealAsDocumented) {
  const std::string xy = "X = 2\nY = 6\nXYArea = $(X) * $(Y)\n";
  EXPECT_EQ(value_of(xy, "$INT(XYArea)"), "12");
  EXPECT_EQ(value_of(xy, "$INT(XYArea,%04d)"), "0012");
  EXPECT_EQ(value_of(xy, "$INT(XYArea,Area=%d)"), "Area=12");
  EXPECT_EQ(value_of(xy, "$INT(XYArea,%x%%)"), "c%");
  EXPECT_EQ(value_of("", "$INT(7)"), "7");         // not a macro: the text itself
  EXPECT_EQ(value_of("", "$INT(2.9)"), "2");       // reals truncate
  EXPECT_EQ(value_of(xy, "$REAL(XYArea)"), "12");  // %.16G
  EXPECT_EQ(value_of("H = 1.0/3\n", "$REAL(H)"), "0.3333333333333333");
  EXPECT_EQ(value_of(xy, "$REAL(XYArea,%.2f)"), "12.00");
  EXPECT_EQ(value_of(xy, "$REAL(XYArea,%.0f)"), "12.0");  // a format result gets its ".0"
}

TEST(ConfigMacroFunctions, StringAndEvalAsDocumented) {
  const std::string host =
      "FULL_HOSTNAME = host.DOMAIN\nLCFullHostname = toLower(\"$(FULL_HOSTNAME)\")\n";
  EXPECT_EQ(value_of(host, "$STRING(LCFullHostname)"), "host.domain");
  EXPECT_EQ(value_of(host, "$STRING(LCFullHostname,Name: %s)"), "Name: host.domain");
  EXPECT_EQ(value_of("W = not an expression (\n", "$STRING(W)"), "not an expression (");
  const std::string lists =
      "slist = \"a,B,c\"\nlcslist = tolower($(slist))\nlist = split($(slist))\n"
      "clist = size($(list)) * 10\nsemilist = join(\";\",split($(lcslist)))\n";
  EXPECT_EQ(value_of(lists, "$EVAL(slist)"), "a,B,c");
  EXPECT_EQ(value_of(lists, "$EVAL(lcslist)"), "a,b,c");
  EXPECT_EQ(value_of(lists, "$EVAL(list)"), "{ \"a\",\"B\",\"c\" }");
  EXPECT_EQ(value_of(lists, "$EVAL(clist)"), "30");
  EXPECT_EQ(value_of(lists, "$EVAL(semilist)"), "a;b;c");
  EXPECT_EQ(value_of("", "$EVAL(Missing * 2)"), "undefined");
}

TEST(ConfigMacroFunctions, SubstrAsDocumented) {
  const std::string name = "Name = abcdef\n";
  EXPECT_EQ(value_of(name, "$SUBSTR(Name, 2)"), "cdef");
  EXPECT_EQ(value_of(name, "$SUBSTR(Name, 0, -2)"), "abcd");
  EXPECT_EQ(value_of(name, "$SUBSTR(Name, 1, 3)"), "bcd");
  EXPECT_EQ(value_of(name, "$SUBSTR(Name, -1)"), "f");
  EXPECT_EQ(value_of(name, "x$SUBSTR(Name, 4, -3)y"), "xy");
  EXPECT_EQ(value_of(name, "$SUBSTR(Name, 10)"), "");
  EXPECT_NE(error_of(name + "V = $SUBSTR(Name, two)\n").find("invalid start index"),
            std::string::npos);
}

TEST(ConfigMacroFunctions, Choice) {
  const std::string colors = "COLORS = red, green, blue\nI = 1\n";
  EXPECT_EQ(value_of(colors, "$CHOICE(2, COLORS)"), "blue");
  EXPECT_EQ(value_of(colors, "$CHOICE(I, COLORS)"), "green");
  EXPECT_EQ(value_of(colors, "$CHOICE(0, a, b, c)"), "a");
  std::string err = error_of(colors + "V = $CHOICE(3, COLORS)\n");
  EXPECT_NE(err.find("$CHOICE(): index 3 is out of range"), std::string::npos) << err;
  EXPECT_NE(err.find("t.conf"), std::string::npos) << err;
  err = error_of("V = $CHOICE(0, NOLIST)\n");
  EXPECT_NE(err.find("no list named NOLIST"), std::string::npos) << err;
}

TEST(ConfigMacroFunctions, FileNameParts) {
  const std::string p = "P = /usr/local/bin/prog.tar.gz\nQ = \"rel/x.sh\"\nBARE = tool\n";
  EXPECT_EQ(value_of(p, "$Fp(P)"), "/usr/local/bin/");
  EXPECT_EQ(value_of(p, "$DIRNAME(P)"), "/usr/local/bin/");
  EXPECT_EQ(value_of(p, "$Fpb(P)"), "/usr/local/bin");
  EXPECT_EQ(value_of(p, "$Fd(P)"), "bin/");
  EXPECT_EQ(value_of(p, "$Fdd(P)"), "local/bin/");
  EXPECT_EQ(value_of(p, "$Fdb(P)"), "bin");
  EXPECT_EQ(value_of(p, "$Fn(P)"), "prog.tar");
  EXPECT_EQ(value_of(p, "$Fx(P)"), ".gz");
  EXPECT_EQ(value_of(p, "$Fxb(P)"), "gz");
  EXPECT_EQ(value_of(p, "$Fnx(P)"), "prog.tar.gz");
  EXPECT_EQ(value_of(p, "$BASENAME(P)"), "prog.tar.gz");
  EXPECT_EQ(value_of(p, "$Fqn(P)"), "\"prog.tar\"");
  EXPECT_EQ(value_of(p, "$Fqa(P)"), "'/usr/local/bin/prog.tar.gz'");
  EXPECT_EQ(value_of(p, "$Fw(P)"), "\\usr\\local\\bin\\prog.tar.gz");
  EXPECT_EQ(value_of(p, "$Fnx(Q)"), "x.sh");  // surrounding quotes are dropped
  EXPECT_EQ(value_of(p, "$Fn(BARE)"), "tool");
  EXPECT_EQ(value_of(p, "[$Fp(BARE)]"), "[]");
}

// "$BASENAME(filename, suffix-to-remove) expands to the basename without the file extension
// or extensions when the filename ends with suffix-to-remove. It behaves like $Fnx(filename)
// when the filename does not end with suffix-to-remove."
TEST(ConfigMacroFunctions, BasenameWithASuffixToRemove) {
  const std::string p = "P = /usr/local/bin/prog.tar.gz\n";
  EXPECT_EQ(value_of(p, "$BASENAME(P, .tar.gz)"), "prog");
  EXPECT_EQ(value_of(p, "$BASENAME(P,.gz)"), "prog.tar");
  EXPECT_EQ(value_of(p, "$BASENAME(P, .zip)"), "prog.tar.gz");
}

// The filename argument is a macro name or, failing that, the file name itself (the
// documented $Fn(/tmp/simulate.exe) is "simulate"); a leading '.' starts no extension, and
// more d's than directories keep the whole path (HTCondor's condor_basename_extension_ptr
// and condor_basename_plus_dirs).
TEST(ConfigMacroFunctions, FileNamePartsOfLiteralsAndEdges) {
  EXPECT_EQ(value_of("", "$Fn(/tmp/simulate.exe)"), "simulate");
  EXPECT_EQ(value_of("", "$Fx(/tmp/simulate.exe)"), ".exe");
  EXPECT_EQ(value_of("", "$Fp(/x/)"), "/x/");
  EXPECT_EQ(value_of("", "$Fn(/a/.hidden)"), ".hidden");
  EXPECT_EQ(value_of("", "[$Fx(/a/.hidden)]"), "[]");
  EXPECT_EQ(value_of("P = /usr/bin/prog\n", "$Fddd(P)"), "/usr/bin/");
  EXPECT_EQ(value_of("P = /usr/bin/prog\n", "$Fddn(P)"), "usr/bin/prog");
}

TEST(ConfigMacroFunctions, BadFormatsAndValuesAreErrors) {
  std::string err = error_of("A = 3\nV = $INT(A,%s)\n");
  EXPECT_NE(err.find("$INT(): '%s' is not a valid format specifier"), std::string::npos) << err;
  err = error_of("A = 3\nV = $REAL(A,%d)\n");
  EXPECT_NE(err.find("$REAL(): '%d' is not a valid format specifier"), std::string::npos) << err;
  err = error_of("A = 3\nV = $STRING(A,%d %s)\n");
  EXPECT_NE(err.find("not a valid format specifier"), std::string::npos) << err;
  err = error_of("A = \"text\"\nV = $INT(A)\n");
  EXPECT_NE(err.find("does not evaluate to an integer"), std::string::npos) << err;
}

TEST(ConfigMacroFunctions, UnknownFunctionsStayAsWritten) {
  EXPECT_EQ(value_of("", "$NOSUCH(x) $Fz(y)"), "$NOSUCH(x) $Fz(y)");
  EXPECT_EQ(value_of("", "$$(Cpus)"), "$$(Cpus)");
}

}  // namespace
