// condor_status -xml: ads in HTCondor's XML ClassAd form (a <classads> document, one <c> per ad).
#pragma once
#include <string>

#include "policy/classad/classad.h"

namespace kite::cli {

// The document's opening lines and its closing line, printed even when no ad matched.
extern const char kXmlHeader[];
extern const char kXmlFooter[];

// One ad: "<c>", an indented `<a n="Attr">value</a>` line per attribute (sorted as -long sorts
// them), "</c>" and a blank line.
void append_xml_ad(std::string* out, const classad::ClassAd& ad);

}  // namespace kite::cli
