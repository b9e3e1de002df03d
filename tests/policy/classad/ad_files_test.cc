// Tests for policy/classad/ad_files: the new-syntax and XML files of ads condor_status
// -ads:new / -ads:xml reads (the forms -long:new and -xml print), and their errors.
#include "policy/classad/ad_files.h"

#include <gtest/gtest.h>

#include "policy/classad/unparse.h"

namespace kite::classad {
namespace {

std::string unparsed(const ClassAd& ad) {
  std::string s;
  unparse_classad(s, ad);
  return s;
}

TEST(AdFilesNew, AListOfAdsAsLongNewPrintsIt) {
  std::vector<AdPtr> ads;
  ParseError err;
  ASSERT_TRUE(classads_from_new_syntax(
      "{\n[ Name = \"slot1@a\"; Cpus = 2; Note = \"]}, [\" ]\n,\n[ Name = \"slot2@a\"; "
      "Req = { 1, [ x = 2 ] } ]\n}\n",
      ads, &err))
      << err.to_string();
  ASSERT_EQ(ads.size(), 2u);
  EXPECT_EQ(to_string(ads[0]->lookup("Name")), "\"slot1@a\"");
  EXPECT_EQ(to_string(ads[0]->lookup("Cpus")), "2");
  EXPECT_EQ(to_string(ads[0]->lookup("Note")), "\"]}, [\"");
  EXPECT_EQ(to_string(ads[1]->lookup("Name")), "\"slot2@a\"");
  EXPECT_EQ(to_string(ads[1]->lookup("Req")), "{ 1,[ x = 2 ] }");
}

TEST(AdFilesNew, BareAdsOneAfterAnother) {
  std::vector<AdPtr> ads;
  ASSERT_TRUE(classads_from_new_syntax("[ a = 1 ]\n\n[ b = \"x\" ]\n", ads));
  ASSERT_EQ(ads.size(), 2u);
  EXPECT_EQ(unparsed(*ads[1]), "[ b = \"x\" ]");
}

TEST(AdFilesNew, ErrorsNameTheLine) {
  std::vector<AdPtr> ads;
  ParseError err;
  EXPECT_FALSE(classads_from_new_syntax("[ a = 1 ]\n[ b = ]\n", ads, &err));
  EXPECT_EQ(err.line, 2);
  EXPECT_FALSE(classads_from_new_syntax("[ a = 1 ]\nName = 2\n", ads, &err));
  EXPECT_EQ(err.line, 2);
  EXPECT_NE(err.message.find("expected '['"), std::string::npos) << err.message;
  EXPECT_FALSE(classads_from_new_syntax("{\n[ a = 1 ]\n", ads, &err));
  EXPECT_NE(err.message.find("never closes"), std::string::npos) << err.message;
  EXPECT_FALSE(classads_from_new_syntax("[ a = \"open\n", ads, &err));
  EXPECT_EQ(err.line, 1);
}

// The document as condor_status -xml writes it (classad/xmlSink.cpp's layout).
const char kXml[] =
    "<?xml version=\"1.0\"?>\n"
    "<!DOCTYPE classads SYSTEM \"classads.dtd\">\n"
    "<classads>\n"
    "<c>\n"
    "    <a n=\"Activity\"><s>Idle</s></a>\n"
    "    <a n=\"Cpus\"><i>2</i></a>\n"
    "    <a n=\"LoadAvg\"><r>1.800000000000000E-01</r></a>\n"
    "    <a n=\"HasVM\"><b v=\"f\"/></a>\n"
    "    <a n=\"Gone\"><un/></a>\n"
    "    <a n=\"Bad\"><er/></a>\n"
    "    <a n=\"Quote\"><s>say \"hi\" &amp; \\\\ &lt;bye&gt;</s></a>\n"
    "    <a n=\"Start\"><e>(Cpus &gt; 0) &amp;&amp; TARGET.X =?= \"y\"</e></a>\n"
    "    <a n=\"L\"><l><i>1</i><s>b</s></l></a>\n"
    "    <a n=\"Empty\"><l></l></a>\n"
    "    <a n=\"Nested\"><c>\n"
    "        <a n=\"x\"><i>3</i></a>\n"
    "    </c></a>\n"
    "</c>\n"
    "\n"
    "<c>\n"
    "    <a n=\"Name\"><s>slot2@a</s></a>\n"
    "</c>\n"
    "\n"
    "</classads>\n";

TEST(AdFilesXml, EveryValueKindComesBack) {
  std::vector<AdPtr> ads;
  ParseError err;
  ASSERT_TRUE(classads_from_xml(kXml, ads, &err)) << err.to_string();
  ASSERT_EQ(ads.size(), 2u);
  const ClassAd& a = *ads[0];
  std::string s;
  EXPECT_TRUE(a.evaluate_string("Activity", s));
  EXPECT_EQ(s, "Idle");
  int64_t n = 0;
  EXPECT_TRUE(a.evaluate_int("Cpus", n));
  EXPECT_EQ(n, 2);
  double r = 0;
  EXPECT_TRUE(a.evaluate_real("LoadAvg", r));
  EXPECT_DOUBLE_EQ(r, 0.18);
  bool b = true;
  EXPECT_TRUE(a.evaluate_bool("HasVM", b));
  EXPECT_FALSE(b);
  EXPECT_EQ(to_string(a.lookup("Gone")), "undefined");
  EXPECT_EQ(to_string(a.lookup("Bad")), "error");
  EXPECT_TRUE(a.evaluate_string("Quote", s));
  EXPECT_EQ(s, "say \"hi\" & \\ <bye>");
  // (the unparser writes =?= as its other spelling, `is`)
  EXPECT_EQ(to_string(a.lookup("Start")), "(Cpus > 0) && TARGET.X is \"y\"");
  EXPECT_EQ(to_string(a.lookup("L")), "{ 1,\"b\" }");
  EXPECT_EQ(to_string(a.lookup("Empty")), "{  }");
  EXPECT_EQ(to_string(a.lookup("Nested")), "[ x = 3 ]");
  EXPECT_TRUE(ads[1]->evaluate_string("Name", s));
  EXPECT_EQ(s, "slot2@a");
}

TEST(AdFilesXml, AnEmptyDocumentHasNoAds) {
  std::vector<AdPtr> ads;
  EXPECT_TRUE(classads_from_xml(
      "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n"
      "</classads>\n",
      ads));
  EXPECT_TRUE(ads.empty());
}

TEST(AdFilesXml, ErrorsNameTheLine) {
  std::vector<AdPtr> ads;
  ParseError err;
  EXPECT_FALSE(classads_from_xml("<classads>\n<c>\n<a n=\"x\"><q>1</q></a>\n</c>\n</classads>\n",
                                 ads, &err));
  EXPECT_EQ(err.line, 3);
  EXPECT_NE(err.message.find("<q>"), std::string::npos) << err.message;
  EXPECT_FALSE(classads_from_xml("<classads>\n<c>\n<a n=\"x\"><i>1</i>\n", ads, &err));
  EXPECT_NE(err.message.find("</a>"), std::string::npos) << err.message;
  EXPECT_FALSE(classads_from_xml("<classads>\n<c>\n<a n=\"x\"><e>1 +</e></a>\n</c>\n", ads, &err));
  EXPECT_EQ(err.line, 2);
  EXPECT_FALSE(classads_from_xml("<classads>\n<c>\n<a n=\"x\"><s>a &nbsp;</s></a></c>", ads, &err));
  EXPECT_NE(err.message.find("entity"), std::string::npos) << err.message;
  EXPECT_FALSE(classads_from_xml("<classads>\n<c></c>\n", ads, &err));
  EXPECT_NE(err.message.find("</classads>"), std::string::npos) << err.message;
}

}  // namespace
}  // namespace kite::classad
