// The durable job queue on SQLite (see job_store.h). Schema: one row per cluster holding the
// cluster ad, one row per proc holding only the attributes that differ from it, a history
// table of full ads, and a meta table with the next cluster id (ids are never reused).
#include "agent/queue/job_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>

#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue {

using classad::AdPtr;
using classad::ClassAd;

namespace {

// WAL with synchronous=FULL: every commit fsyncs the WAL before sqlite3_step returns, so a
// submit that was acknowledged survives kill -9 *and* power loss. NORMAL would survive kill -9
// only (the last commits can roll back on power loss), which breaks "committed before
// acknowledged"; the cost is one fsync per transaction, and a submit of N procs is one.
const char* const kSchema =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS clusters(cluster INTEGER PRIMARY KEY, ad TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS procs(cluster INTEGER NOT NULL, proc INTEGER NOT NULL,"
    " status INTEGER NOT NULL, qdate INTEGER NOT NULL, prio INTEGER NOT NULL, ad TEXT NOT NULL,"
    " PRIMARY KEY(cluster, proc)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS history(seq INTEGER PRIMARY KEY, cluster INTEGER NOT NULL,"
    " proc INTEGER NOT NULL, ad TEXT NOT NULL);"
    "INSERT OR IGNORE INTO meta VALUES('next_cluster', 1);";

// A prepared statement finalized on every path.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return s_ != nullptr; }
  sqlite3_stmt* get() const { return s_; }
  void bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void bind(int i, const std::string& t) {
    sqlite3_bind_text(s_, i, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
  }
  int step() { return sqlite3_step(s_); }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  int64_t int_col(int i) const { return sqlite3_column_int64(s_, i); }
  std::string_view text_col(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? std::string_view(reinterpret_cast<const char*>(t),
                                static_cast<size_t>(sqlite3_column_bytes(s_, i)))
             : std::string_view();
  }

 private:
  sqlite3_stmt* s_ = nullptr;
};

std::string ad_text(const ClassAd& ad) {
  std::string out;
  classad::unparse_classad(out, ad);
  return out;
}

std::string expr_text(const classad::Expr* e) {
  std::string out;
  classad::unparse_expr(out, e);
  return out;
}

// The attributes of `proc` whose text differs from (or is missing in) `cluster`.
AdPtr proc_delta(const ClassAd& cluster, const ClassAd& proc) {
  AdPtr out(ClassAd::make());
  for (const ClassAd::Entry& e : proc.entries()) {
    std::string_view name = e.name->view();
    const classad::Expr* shared = cluster.lookup(name);
    if (shared && expr_text(shared) == expr_text(e.expr)) continue;
    classad::expr_ref(e.expr);
    out->insert(name, e.expr);
  }
  return out;
}

void set_int(ClassAd& ad, std::string_view name, int64_t v) {
  ad.insert_value(name, classad::Value::integer(v));
}

int64_t int_attr(const ClassAd& ad, std::string_view name, int64_t dflt) {
  int64_t v = 0;
  return ad.evaluate_int(name, v) ? v : dflt;
}

// The job's full ad: a copy of the cluster ad with the proc's attributes laid over it.
AdPtr parse_stored(std::string_view text, const char* what, std::string* err) {
  classad::ParseError pe;
  AdPtr ad = classad::parse_classad(text, &pe);
  if (!ad && err) *err = std::string("stored ") + what + " ad does not parse: " + pe.to_string();
  return ad;
}

}  // namespace

bool status_transition_allowed(int from, int to) {
  if (from == to) return false;
  switch (from) {
    case kIdle: return to == kRunning || to == kHeld || to == kRemoved;
    case kRunning:
      return to == kIdle || to == kCompleted || to == kHeld || to == kRemoved || to == kSuspended ||
             to == kTransferringOutput;
    case kTransferringOutput:
      return to == kCompleted || to == kIdle || to == kHeld || to == kRemoved;
    case kSuspended: return to == kRunning || to == kIdle || to == kHeld || to == kRemoved;
    case kHeld: return to == kIdle || to == kRemoved;
    default: return false;  // Removed and Completed are final
  }
}

JobStore::~JobStore() {
  close();
}

void JobStore::close() {
  if (group_open_) {
    std::string ignore;
    commit_group(&ignore);
  }
  if (db_) sqlite3_close(db_);
  db_ = nullptr;
  jobs_.clear();
}

bool JobStore::fail(std::string* err, const char* what) const {
  if (err) *err = path_ + ": " + what + ": " + (db_ ? sqlite3_errmsg(db_) : "not open");
  return false;
}

bool JobStore::exec(const char* sql, std::string* err) const {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) == SQLITE_OK) return true;
  if (err) *err = path_ + ": " + (msg ? msg : "sqlite error");
  sqlite3_free(msg);
  return false;
}

bool JobStore::begin_change(std::string* err) {
  if (!grouped_) return exec("BEGIN IMMEDIATE", err);
  if (!group_open_) {
    if (!exec("BEGIN IMMEDIATE", err)) return false;
    group_open_ = true;
  }
  ++group_changes_;
  return exec("SAVEPOINT change", err);
}

bool JobStore::end_change(bool ok, std::string* err) {
  if (!grouped_) {
    if (ok && exec("COMMIT", err)) return true;
    exec("ROLLBACK", nullptr);
    return false;
  }
  if (ok && exec("RELEASE change", err)) return true;
  exec("ROLLBACK TO change", nullptr);
  exec("RELEASE change", nullptr);
  return false;
}

bool JobStore::commit_group(std::string* err) {
  if (!group_open_) return true;
  group_open_ = false;
  group_changes_ = 0;
  if (exec("COMMIT", err)) return true;
  // Nothing of the group is on disk: the summaries go back to what the disk says.
  exec("ROLLBACK", nullptr);
  std::string e;
  if (!load(&e) && err) *err += "; " + e;
  return false;
}

bool JobStore::open(const std::string& path, std::string* err) {
  close();
  path_ = path;
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    fail(err, "cannot open the queue database");
    close();
    return false;
  }
  sqlite3_busy_timeout(db_, 5000);
  if (!exec(kSchema, err) || !load(err)) {
    close();
    return false;
  }
  return true;
}

bool JobStore::load(std::string* err) {
  jobs_.clear();
  Stmt next(db_, "SELECT value FROM meta WHERE key='next_cluster'");
  if (!next.ok() || next.step() != SQLITE_ROW) return fail(err, "reading the next cluster id");
  next_cluster_ = static_cast<int32_t>(next.int_col(0));
  Stmt q(db_, "SELECT cluster, proc, status, qdate, prio FROM procs ORDER BY cluster, proc");
  if (!q.ok()) return fail(err, "reading the jobs");
  int rc;
  while ((rc = q.step()) == SQLITE_ROW) {
    JobSummary s;
    s.id = {static_cast<int32_t>(q.int_col(0)), static_cast<int32_t>(q.int_col(1))};
    s.status = static_cast<int8_t>(q.int_col(2));
    s.qdate = q.int_col(3);
    s.prio = static_cast<int32_t>(q.int_col(4));
    jobs_.push_back(s);
  }
  if (rc != SQLITE_DONE) return fail(err, "reading the jobs");
  jobs_.shrink_to_fit();
  return true;
}

bool JobStore::submit(const ClassAd& cluster_ad, std::span<const ClassAd* const> procs, int64_t now,
                      int32_t* cluster_out, std::string* err, int32_t reserved) {
  if (!db_) return fail(err, "submit");
  if (procs.empty()) {
    if (err) *err = "submit: no procs";
    return false;
  }
  const int32_t cluster = reserved > 0 ? reserved : next_cluster_;
  const int32_t next = std::max(next_cluster_, cluster + 1);  // later reservations stay taken
  AdPtr shared(cluster_ad.copy());
  set_int(*shared, "ClusterId", cluster);
  set_int(*shared, "QDate", now);
  if (!commit_group(err)) return false;
  if (!exec("BEGIN IMMEDIATE", err)) return false;
  std::vector<JobSummary> added;
  added.reserve(procs.size());
  bool ok = true;
  {
    Stmt c(db_, "INSERT INTO clusters VALUES(?1, ?2)");
    Stmt p(db_, "INSERT INTO procs VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    Stmt m(db_, "UPDATE meta SET value=?1 WHERE key='next_cluster'");
    ok = c.ok() && p.ok() && m.ok();
    if (ok) {
      c.bind(1, cluster);
      c.bind(2, ad_text(*shared));
      ok = c.step() == SQLITE_DONE;
    }
    for (size_t i = 0; ok && i < procs.size(); ++i) {
      AdPtr delta = proc_delta(*shared, *procs[i]);
      set_int(*delta, "ProcId", static_cast<int64_t>(i));
      // A proc's own value wins over the cluster's (no merged copy per proc: submits of
      // thousands of procs stay cheap).
      auto proc_int = [&](std::string_view name, int64_t dflt) {
        return delta->lookup(name) ? int_attr(*delta, name, dflt) : int_attr(*shared, name, dflt);
      };
      int64_t status = proc_int("JobStatus", kIdle);
      if (status != kHeld) status = kIdle;
      set_int(*delta, "JobStatus", status);
      set_int(*delta, "EnteredCurrentStatus", now);
      JobSummary s;
      s.id = {cluster, static_cast<int32_t>(i)};
      s.qdate = now;
      s.prio = static_cast<int32_t>(proc_int("JobPrio", 0));
      s.status = static_cast<int8_t>(status);
      p.bind(1, cluster);
      p.bind(2, static_cast<int64_t>(i));
      p.bind(3, status);
      p.bind(4, now);
      p.bind(5, s.prio);
      p.bind(6, ad_text(*delta));
      ok = p.step() == SQLITE_DONE;
      p.reset();
      added.push_back(s);
    }
    if (ok) {
      m.bind(1, static_cast<int64_t>(next));
      ok = m.step() == SQLITE_DONE;
    }
  }
  if (!ok) {
    fail(err, "submit");
    exec("ROLLBACK", nullptr);
    return false;
  }
  if (!exec("COMMIT", err)) {
    exec("ROLLBACK", nullptr);
    return false;
  }
  next_cluster_ = next;
  // New ids sort last, except a reserved cluster committed after a later one.
  auto at = std::lower_bound(jobs_.begin(), jobs_.end(), added.front().id,
                             [](const JobSummary& s, JobId k) { return s.id < k; });
  jobs_.insert(at, added.begin(), added.end());
  if (cluster_out) *cluster_out = cluster;
  return true;
}

JobSummary* JobStore::find(JobId id) {
  auto it = std::lower_bound(jobs_.begin(), jobs_.end(), id,
                             [](const JobSummary& s, JobId k) { return s.id < k; });
  return it != jobs_.end() && it->id == id ? &*it : nullptr;
}

bool JobStore::read_ads(JobId id, AdPtr* cluster, AdPtr* proc, std::string* err) const {
  Stmt c(db_, "SELECT ad FROM clusters WHERE cluster=?1");
  if (!c.ok()) return fail(err, "reading a cluster");
  c.bind(1, id.cluster);
  if (c.step() != SQLITE_ROW) {
    if (err) *err = "no cluster " + std::to_string(id.cluster);
    return false;
  }
  *cluster = parse_stored(c.text_col(0), "cluster", err);
  if (!*cluster) return false;
  if (!proc) return true;
  Stmt p(db_, "SELECT ad FROM procs WHERE cluster=?1 AND proc=?2");
  if (!p.ok()) return fail(err, "reading a job");
  p.bind(1, id.cluster);
  p.bind(2, id.proc);
  if (p.step() != SQLITE_ROW) {
    if (err) *err = "no job " + std::to_string(id.cluster) + "." + std::to_string(id.proc);
    return false;
  }
  *proc = parse_stored(p.text_col(0), "proc", err);
  return static_cast<bool>(*proc);
}

AdPtr JobStore::cluster_ad(int32_t cluster, std::string* err) const {
  AdPtr ad;
  if (!db_) {
    fail(err, "cluster_ad");
  } else {
    read_ads({cluster, -1}, &ad, nullptr, err);
  }
  return ad;
}

bool JobStore::scan(JobId after, size_t max, std::vector<ScanRow>* rows, std::string* err) const {
  if (!db_) return fail(err, "scan");
  Stmt q(db_,
         // The row value walks the primary key from where the last chunk ended.
         "SELECT cluster, proc, ad FROM procs WHERE (cluster, proc) > (?1, ?2)"
         " ORDER BY cluster, proc LIMIT ?3");
  if (!q.ok()) return fail(err, "scanning the queue");
  q.bind(1, after.cluster);
  q.bind(2, after.proc);
  q.bind(3, static_cast<int64_t>(max));
  int rc;
  while ((rc = q.step()) == SQLITE_ROW) {
    AdPtr ad = parse_stored(q.text_col(2), "proc", err);
    if (!ad) return false;
    rows->push_back(
        {{static_cast<int32_t>(q.int_col(0)), static_cast<int32_t>(q.int_col(1))}, std::move(ad)});
  }
  return rc == SQLITE_DONE || fail(err, "scanning the queue");
}

AdPtr JobStore::job_ad(JobId id, std::string* err) const {
  if (!db_) {
    fail(err, "job_ad");
    return AdPtr();
  }
  AdPtr cluster, proc;
  if (!read_ads(id, &cluster, &proc, err)) return AdPtr();
  return merge(*cluster, *proc);
}

bool JobStore::write_proc(JobId id, int status, const ClassAd& ad, std::string* err) {
  Stmt u(db_, "UPDATE procs SET status=?3, prio=?4, ad=?5 WHERE cluster=?1 AND proc=?2");
  if (!u.ok()) return fail(err, "updating a job");
  u.bind(1, id.cluster);
  u.bind(2, id.proc);
  u.bind(3, status);
  u.bind(4, int_attr(ad, "JobPrio", 0));
  u.bind(5, ad_text(ad));
  return u.step() == SQLITE_DONE || fail(err, "updating a job");
}

bool JobStore::set_attribute(JobId id, std::string_view name, std::string_view expr_text_in,
                             std::string* err) {
  if (!db_) return fail(err, "set_attribute");
  classad::ParseError pe;
  classad::ExprPtr e = classad::parse_expr(expr_text_in, &pe);
  if (!e) {
    if (err) *err = "attribute " + std::string(name) + ": " + pe.to_string();
    return false;
  }
  std::string lname(name);
  std::transform(lname.begin(), lname.end(), lname.begin(), ::tolower);
  if (lname == "jobstatus" || lname == "clusterid" || lname == "procid") {
    if (err) *err = std::string(name) + " cannot be set as an attribute";
    return false;
  }
  AdPtr cluster, proc;
  if (!read_ads(id, &cluster, id.proc >= 0 ? &proc : nullptr, err)) return false;
  if (!begin_change(err)) return false;
  if (id.proc < 0) {
    cluster->insert(name, e.release());
    Stmt u(db_, "UPDATE clusters SET ad=?2 WHERE cluster=?1");
    bool ok = u.ok();
    if (ok) {
      u.bind(1, id.cluster);
      u.bind(2, ad_text(*cluster));
      ok = u.step() == SQLITE_DONE;
    }
    if (!ok) fail(err, "updating a cluster");
    return end_change(ok, err);
  }
  JobSummary* s = find(id);
  proc->insert(name, e.release());
  if (!end_change(write_proc(id, s ? int{s->status} : int{kIdle}, *proc, err), err)) return false;
  if (s) s->prio = static_cast<int32_t>(int_attr(*merge(*cluster, *proc), "JobPrio", 0));
  return true;
}

bool JobStore::set_status(JobId id, int status, int64_t now, std::string* err,
                          std::span<const std::pair<std::string, std::string>> attrs) {
  if (!db_) return fail(err, "set_status");
  JobSummary* s = find(id);
  std::string name = std::to_string(id.cluster) + "." + std::to_string(id.proc);
  if (!s) {
    if (err) *err = "no job " + name;
    return false;
  }
  if (!status_transition_allowed(s->status, status)) {
    if (err)
      *err = "job " + name + ": no transition from status " + std::to_string(s->status) + " to " +
             std::to_string(status);
    return false;
  }
  AdPtr cluster, proc;
  if (!read_ads(id, &cluster, &proc, err)) return false;
  for (const auto& [attr, text] : attrs) {
    classad::ParseError pe;
    classad::ExprPtr e = classad::parse_expr(text, &pe);
    if (!e) {
      if (err) *err = "attribute " + attr + ": " + pe.to_string();
      return false;
    }
    proc->insert(attr, e.release());
  }
  set_int(*proc, "LastJobStatus", s->status);
  set_int(*proc, "JobStatus", status);
  set_int(*proc, "EnteredCurrentStatus", now);
  if (status == kCompleted) set_int(*proc, "CompletionDate", now);
  const bool leaves = status == kRemoved || status == kCompleted;
  if (!begin_change(err)) return false;
  bool ok;
  if (leaves) {
    Stmt h(db_, "INSERT INTO history(cluster, proc, ad) VALUES(?1, ?2, ?3)");
    Stmt d(db_, "DELETE FROM procs WHERE cluster=?1 AND proc=?2");
    Stmt c(db_,
           "DELETE FROM clusters WHERE cluster=?1 AND NOT EXISTS"
           " (SELECT 1 FROM procs WHERE cluster=?1)");
    ok = h.ok() && d.ok() && c.ok();
    if (ok) {
      h.bind(1, id.cluster);
      h.bind(2, id.proc);
      h.bind(3, ad_text(*merge(*cluster, *proc)));
      d.bind(1, id.cluster);
      d.bind(2, id.proc);
      c.bind(1, id.cluster);
      ok = h.step() == SQLITE_DONE && d.step() == SQLITE_DONE && c.step() == SQLITE_DONE;
    }
    if (!ok) fail(err, "moving a job to the history");
  } else {
    ok = write_proc(id, status, *proc, err);
  }
  if (!end_change(ok, err)) return false;
  if (leaves) {
    jobs_.erase(jobs_.begin() + (s - jobs_.data()));
  } else {
    s->status = static_cast<int8_t>(status);
  }
  return true;
}

bool JobStore::history(int limit, std::vector<AdPtr>* out, std::string* err) const {
  if (!db_) return fail(err, "history");
  Stmt q(db_, "SELECT ad FROM history ORDER BY seq DESC LIMIT ?1");
  if (!q.ok()) return fail(err, "reading the history");
  q.bind(1, limit < 0 ? int64_t{-1} : int64_t{limit});
  int rc;
  while ((rc = q.step()) == SQLITE_ROW) {
    AdPtr ad = parse_stored(q.text_col(0), "history", err);
    if (!ad) return false;
    out->push_back(std::move(ad));
  }
  return rc == SQLITE_DONE || fail(err, "reading the history");
}

}  // namespace kite::queue
