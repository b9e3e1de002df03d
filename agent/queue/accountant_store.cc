// The accountant's SQLite table: whole-state saves in one transaction, and the load at start.
#include "agent/queue/accountant_store.h"

#include <sqlite3.h>

#include <algorithm>

#include "policy/accountant/accounting_ad.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue {
namespace {

// synchronous=FULL: a save that returned survives kill -9 and power loss (see job_store.cc).
const char* const kSchema =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "CREATE TABLE IF NOT EXISTS accountant(name TEXT PRIMARY KEY, ad TEXT NOT NULL);";

}  // namespace

AccountantStore::~AccountantStore() {
  close();
}

void AccountantStore::close() {
  if (db_) sqlite3_close(db_);
  db_ = nullptr;
}

bool AccountantStore::fail(std::string* err, const std::string& what) const {
  if (err) {
    *err = path_ + ": " + what;
    if (db_) *err += std::string(": ") + sqlite3_errmsg(db_);
  }
  return false;
}

bool AccountantStore::exec(const char* sql, std::string* err) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) == SQLITE_OK) return true;
  if (err) *err = path_ + ": " + (msg ? msg : "SQLite error");
  sqlite3_free(msg);
  return false;
}

bool AccountantStore::open(const std::string& path, std::string* err) {
  close();
  path_ = path;
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    fail(err, "cannot open the accountant database");
    close();
    return false;
  }
  sqlite3_busy_timeout(db_, 5000);
  if (!exec(kSchema, err)) {
    close();
    return false;
  }
  return true;
}

bool AccountantStore::load(accountant::Accountant* acc, std::string* err) const {
  if (!db_) return fail(err, "not open");
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT name, ad FROM accountant", -1, &q, nullptr) != SQLITE_OK)
    return fail(err, "reading the accountant");
  accountant::Accountant loaded(acc->settings());
  int64_t last = 0;
  int rc;
  bool ok = true;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    const char* text = reinterpret_cast<const char*>(sqlite3_column_text(q, 1));
    const char* name = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
    classad::AdPtr ad = classad::parse_classad(text ? text : "");
    accountant::Record r;
    std::string why;
    if (!ad) {
      ok = fail(err, std::string("the stored ad of ") + (name ? name : "?") + " does not parse");
      break;
    }
    if (!accountant::record_from_ad(*ad, &r, &why)) {
      ok = fail(err, why);
      break;
    }
    last = std::max(last, r.charged_until);
    loaded.restore(std::move(r));
  }
  if (ok && rc != SQLITE_DONE) ok = fail(err, "reading the accountant");
  sqlite3_finalize(q);
  if (!ok) return false;
  loaded.update(last);  // nothing to charge: every record is charged up to its own time
  *acc = std::move(loaded);
  return true;
}

bool AccountantStore::save(const accountant::Accountant& acc, std::string* err) {
  if (!db_) return fail(err, "not open");
  if (!exec("BEGIN IMMEDIATE; DELETE FROM accountant;", err)) return false;
  sqlite3_stmt* ins = nullptr;
  bool ok = sqlite3_prepare_v2(db_, "INSERT INTO accountant(name, ad) VALUES(?1, ?2)", -1, &ins,
                               nullptr) == SQLITE_OK;
  if (!ok) fail(err, "saving the accountant");
  for (size_t i = 0; ok && i < acc.records().size(); ++i) {
    const accountant::Record& r = acc.records()[i];
    std::string text;
    classad::unparse_classad(text, *accountant::record_to_ad(acc, r, "<none>"));
    sqlite3_bind_text(ins, 1, r.name.data(), int(r.name.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 2, text.data(), int(text.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(ins) != SQLITE_DONE) ok = fail(err, "saving " + r.name);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  if (!ok) {
    exec("ROLLBACK;", nullptr);
    return false;
  }
  return exec("COMMIT;", err);
}

}  // namespace kite::queue
