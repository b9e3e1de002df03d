// The central manager's durable accountant: one Accounting ad per submitter and group in one
// SQLite table (WAL, synchronous=FULL), saved whole in one transaction, loaded at start.
#pragma once

#include <string>

#include "policy/accountant/accountant.h"

struct sqlite3;

namespace kite::queue {

class AccountantStore {
 public:
  AccountantStore() = default;
  ~AccountantStore();
  AccountantStore(const AccountantStore&) = delete;
  AccountantStore& operator=(const AccountantStore&) = delete;

  /// Opens (creating if needed) the database at `path`. False with *err naming the file.
  bool open(const std::string& path, std::string* err);
  void close();

  /// Replaces `acc`'s records with the stored ones and sets its last update to the latest
  /// stored one. A stored ad that does not read is an error naming its submitter.
  bool load(accountant::Accountant* acc, std::string* err) const;

  /// Stores every record of `acc` (and drops deleted ones) in one transaction, durable on disk
  /// before this returns true: call it after each update and each admin change, before the
  /// change is acknowledged.
  bool save(const accountant::Accountant& acc, std::string* err);

 private:
  bool exec(const char* sql, std::string* err);
  bool fail(std::string* err, const std::string& what) const;
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace kite::queue
