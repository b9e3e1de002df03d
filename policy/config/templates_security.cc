// The ROLE and SECURITY templates Kite ships: each sets the same macros to the same raw values
// as HTCondor 25 does (tests/data/config/templates-all.tsv).
#include "policy/config/internal.h"

namespace kite::config::internal {
namespace {

// Line numbers matter: comments and blank lines count, so keep the layout when editing.
const Template kTemplates[] = {
    {"ROLE", "Personal",
     R"TPL(CONDOR_HOST=127.0.0.1
COLLECTOR_HOST=$(CONDOR_HOST):0
DAEMON_LIST=MASTER COLLECTOR NEGOTIATOR STARTD SCHEDD
RunBenchmarks=0)TPL"},
    {"ROLE", "Execute", "DAEMON_LIST=$(DAEMON_LIST) STARTD"},
    {"ROLE", "Submit", "DAEMON_LIST=$(DAEMON_LIST) SCHEDD"},
    {"ROLE", "CentralManager", "DAEMON_LIST=$(DAEMON_LIST) COLLECTOR NEGOTIATOR"},

    // ---------------------------------------------------------------- SECURITY
    {"SECURITY", "HOST_BASED",
     R"TPL(ALLOW_ADMINISTRATOR=$(CONDOR_HOST)
ALLOW_READ=*
ALLOW_WRITE=$(FULL_HOSTNAME) $(IPV4_ADDRESS) $(IPV6_ADDRESS)
ALLOW_DAEMON=$(FULL_HOSTNAME) $(IPV4_ADDRESS) $(IPV6_ADDRESS)
ALLOW_NEGOTIATOR=$(CONDOR_HOST)
ALLOW_NEGOTIATOR_SCHEDD=$(ALLOW_NEGOTIATOR) $(FLOCK_NEGOTIATOR_HOSTS)
ALLOW_WRITE_COLLECTOR=$(ALLOW_WRITE) $(FLOCK_FROM)
ALLOW_WRITE_STARTD=$(ALLOW_WRITE) $(FLOCK_FROM)
ALLOW_READ_COLLECTOR=$(ALLOW_READ) $(FLOCK_FROM)
ALLOW_READ_STARTD=$(ALLOW_READ) $(FLOCK_FROM)

# keeps 8.8-era ALLOW semantics working after an upgrade
LEGACY_ALLOW_SEMANTICS = TRUE)TPL"},
    {"SECURITY", "WITH_AUTHENTICATION",
     R"TPL(SEC_DEFAULT_AUTHENTICATION=required
SEC_DEFAULT_INTEGRITY=required)TPL"},
    {"SECURITY", "STRONG",
     R"TPL(SEC_DEFAULT_ENCRYPTION=required
SEC_DEFAULT_INTEGRITY=required
SEC_DEFAULT_AUTHENTICATION=required)TPL"},
    {"SECURITY", "USER_BASED",
     R"TPL(if $(CondorIsAdmin)
authuser=condor
else
authuser=$(USERNAME)
endif
ALLOW_ADMINISTRATOR=$(authuser)@$(CONDOR_HOST)
ALLOW_READ=*
ALLOW_WRITE=$(authuser)@$(FULL_HOSTNAME) $(authuser)@$(IP_ADDRESS)
ALLOW_DAEMON=$(authuser)@$(FULL_HOSTNAME) $(authuser)@$(IP_ADDRESS)
ALLOW_NEGOTIATOR=$(authuser)@$(CONDOR_HOST)
ALLOW_NEGOTIATOR_SCHEDD=$(ALLOW_NEGOTIATOR) $(FLOCK_NEGOTIATOR_HOSTS)
ALLOW_WRITE_COLLECTOR=$(ALLOW_WRITE) $(FLOCK_FROM)
ALLOW_WRITE_STARTD=$(ALLOW_WRITE) $(FLOCK_FROM)
ALLOW_READ_COLLECTOR=$(ALLOW_READ) $(FLOCK_FROM)
ALLOW_READ_STARTD=$(ALLOW_READ) $(FLOCK_FROM)
use SECURITY:WITH_AUTHENTICATION)TPL"},
    {"SECURITY", "FIPS",
     R"TPL(FIPS = True
use security:strong
SEC_DEFAULT_CRYPTO_METHODS = AES,3DES)TPL"},
};

}  // namespace

TemplateTable security_templates() {
  return {kTemplates, sizeof kTemplates / sizeof kTemplates[0]};
}

}  // namespace kite::config::internal
