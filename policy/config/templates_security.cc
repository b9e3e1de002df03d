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
use security:recommended($(authuser))
# a daemon running as an ordinary user takes jobs from that user only
if ! $(CondorIsAdmin)
ALLOW_WRITE = $(authuser)@$(UID_DOMAIN)
endif)TPL"},
    {"SECURITY", "FIPS",
     R"TPL(FIPS = True
use security:strong
SEC_DEFAULT_CRYPTO_METHODS = AES,3DES)TPL"},

    // The recommended security of each release: strong security for everyone but READ, and
    // the pool's daemons (arguments: service account, administrators) as administrators.
    {"SECURITY", "recommended_v9_0",
     R"TPL(SECURITY_MODEL = 9.0
use security:strong
SEC_READ_AUTHENTICATION = OPTIONAL
SEC_READ_ENCRYPTION = OPTIONAL
SEC_READ_INTEGRITY = OPTIONAL
ALLOW_ADMINISTRATOR = $(1:condor)@* condor_pool@* $(2:root@*) $(3+)
ALLOW_DAEMON = $(1:condor)@*  condor_pool@*
ALLOW_NEGOTIATOR = $(1:condor)@* condor_pool@*
ALLOW_WRITE = *
ALLOW_READ = *)TPL"},
    {"SECURITY", "recommended_v24_0",
     R"TPL(SECURITY_MODEL = 24.0
use security:strong
SEC_READ_AUTHENTICATION = OPTIONAL
SEC_CLIENT_AUTHENTICATION = OPTIONAL
ALLOW_ADMINISTRATOR = $(1:condor)@* condor@password $(2:root@*) $(3+)
ALLOW_DAEMON = $(1:condor)@*  condor@password
ALLOW_NEGOTIATOR = $(1:condor)@* condor@password
ALLOW_WRITE = *
ALLOW_READ = *)TPL"},
    {"SECURITY", "recommended", "use security:recommended_v24_0($(1+))"},

    // What the get_htcondor installer writes: IDTOKENS, with ANONYMOUS for READ so that
    // older peers can still ask without authenticating.
    {"SECURITY", "get_htcondor_idtokens",
     R"TPL(use security:recommended
SEC_READ_AUTHENTICATION_METHODS = $(SEC_DEFAULT_AUTHENTICATION_METHODS),ANONYMOUS
SEC_CLIENT_AUTHENTICATION_METHODS = $(SEC_DEFAULT_AUTHENTICATION_METHODS),ANONYMOUS
# tokens issued here name the pool's central manager as their issuer
TRUST_DOMAIN = $(CONDOR_HOST))TPL"},
    {"ROLE", "get_htcondor_central_manager",
     "use security:get_htcondor_idtokens\nuse role:CentralManager"},
    {"ROLE", "get_htcondor_submit", "use security:get_htcondor_idtokens\nuse role:submit"},
    {"ROLE", "get_htcondor_execute", "use security:get_htcondor_idtokens\nuse role:execute"},
};

}  // namespace

TemplateTable security_templates() {
  return {kTemplates, sizeof kTemplates / sizeof kTemplates[0]};
}

}  // namespace kite::config::internal
