// Files of several ads in the forms condor_status -ads:FORM reads: new syntax (`[...]` ads,
// optionally a `{ [...], [...] }` list, as -long:new prints) and XML (as -xml prints).
#pragma once

#include <string_view>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/parser.h"

namespace kite::classad {

// Every top-level `[ ... ]` ad of `text`, in order; blanks, commas and one enclosing `{ }` are
// skipped. False with the line of the bad ad in `err` (anything else is an error too).
bool classads_from_new_syntax(std::string_view text, std::vector<AdPtr>& out,
                              ParseError* err = nullptr);

// Every `<c>` ad of a `<classads>` document: typed literals (<s> <i> <r> <b v=".."/> <un/>
// <er/> <at> <rt>), lists <l>, nested ads <c> and expressions <e>; the entities &amp; &lt;
// &gt; &quot; &apos;. False with the line of the fault in `err`.
bool classads_from_xml(std::string_view text, std::vector<AdPtr>& out, ParseError* err = nullptr);

}  // namespace kite::classad
