//! Encryption at rest on MySQL/MariaDB is the server's: InnoDB encrypts tablespaces with
//! keys from a key management plugin (`file_key_management`, a KMS plugin), the redo log
//! and temporary files with it when told to. The service cannot do it for the server, so
//! it reports what the server does: [`MySqlStore::encryption_report`] lists each table
//! of this database (the FULLTEXT index's own auxiliary tables included) and whether its
//! tablespace is encrypted, and `serve` warns at start when one is not. InnoDB knows that
//! only for tablespaces it has open (after a restart, those used since), so the report
//! opens every table it can first, and says "not known" for the rest.

use sqlx::Row as _;

use crate::rows::db_err;
use crate::MySqlStore;
use memory_bank_store::StoreError;

/// What the server says of one table's tablespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableEncryption {
    /// Encrypted.
    Encrypted,
    /// Not encrypted.
    NotEncrypted,
    /// Not known, on a server that encrypts by default: it lists a tablespace only once it
    /// has opened it since it started and the tablespace has encryption data, so this is
    /// either a table not opened yet or one made before encryption was turned on that the
    /// background threads have not encrypted yet. The report opens every table it can
    /// (see [`MySqlStore::encryption_report`]); a FULLTEXT index's auxiliary tables only
    /// InnoDB itself opens, when it next uses them.
    NotOpened,
}

/// Each InnoDB table of the database and whether its tablespace is encrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptionReport {
    /// By name; FULLTEXT auxiliary tables appear as `FTS_…`.
    pub tables: Vec<(String, TableEncryption)>,
}

impl EncryptionReport {
    /// True when every table is encrypted (and there is at least one).
    pub fn all_encrypted(&self) -> bool {
        !self.tables.is_empty() && self.tables.iter().all(|(_, e)| *e == TableEncryption::Encrypted)
    }

    /// The tables that are not encrypted.
    pub fn plaintext_tables(&self) -> Vec<&str> {
        self.named(TableEncryption::NotEncrypted)
    }

    /// The tables whose encryption the server cannot tell yet ([`TableEncryption::NotOpened`]).
    pub fn unopened_tables(&self) -> Vec<&str> {
        self.named(TableEncryption::NotOpened)
    }

    fn named(&self, state: TableEncryption) -> Vec<&str> {
        self.tables.iter().filter(|(_, e)| *e == state).map(|(t, _)| t.as_str()).collect()
    }

    /// One line per table, then a summary.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .tables
            .iter()
            .map(|(t, e)| {
                format!("  {t}: {}", match e {
                    TableEncryption::Encrypted => "encrypted",
                    TableEncryption::NotEncrypted => "NOT encrypted",
                    TableEncryption::NotOpened => "not known yet (not opened since the server started, or waiting for its encryption threads)",
                })
            })
            .collect();
        let (plain, unopened) = (self.plaintext_tables().len(), self.unopened_tables().len());
        lines.insert(
            0,
            if self.all_encrypted() {
                format!("encrypted: yes (all {} InnoDB tables)", self.tables.len())
            } else if plain > 0 {
                format!("encrypted: no ({plain} of {} InnoDB tables are not)", self.tables.len())
            } else {
                format!("encrypted: not known for {unopened} of {} InnoDB tables (the rest are encrypted)", self.tables.len())
            },
        );
        lines
    }
}

impl MySqlStore {
    /// What the server encrypts of this database (MariaDB: `information_schema`
    /// `INNODB_SYS_TABLES` and `INNODB_TABLESPACES_ENCRYPTION`; needs the PROCESS privilege).
    pub async fn encryption_report(&self) -> Result<EncryptionReport, StoreError> {
        let report = self.read_encryption().await?;
        // InnoDB reports only the tablespaces it has open: open each table it can (a row
        // read), then ask again. A FULLTEXT auxiliary table cannot be read by name.
        let unopened: Vec<&str> = report.unopened_tables().into_iter().filter(|t| !t.starts_with("FTS_")).collect();
        if unopened.is_empty() {
            return Ok(report);
        }
        for table in unopened {
            // The name comes from the server's own catalogue and is quoted (inner
            // backticks doubled): identifiers cannot be bound parameters.
            let sql = format!("SELECT 1 FROM `{}` LIMIT 1", table.replace('`', "``"));
            sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_optional(self.pool()).await.map_err(db_err)?;
        }
        self.read_encryption().await
    }

    /// On a server that encrypts new tables by default, rebuilds the tables of this
    /// database it has not encrypted (made before encryption was turned on), so they are
    /// written again encrypted, with their FULLTEXT auxiliary tables. InnoDB's background
    /// encryption threads would get to them only if they open them, and measured on
    /// MariaDB 10.11 they sometimes left a table for minutes (the test waits 120 s).
    /// Returns the tables rebuilt. A report the account may not read (no PROCESS
    /// privilege) rebuilds nothing.
    pub async fn rebuild_unencrypted_tables(&self) -> Result<Vec<String>, StoreError> {
        if self.encrypts_by_default().await != Some(true) {
            return Ok(Vec::new());
        }
        let report = match self.encryption_report().await {
            Ok(report) => report,
            Err(e) => {
                tracing::warn!(error = %e, "cannot tell which tables the server has not encrypted; none rebuilt");
                return Ok(Vec::new());
            }
        };
        let mut rebuilt = Vec::new();
        for (table, state) in &report.tables {
            if table.starts_with("FTS_") || *state == TableEncryption::Encrypted {
                continue;
            }
            // The name comes from the server's own catalogue and is quoted.
            let sql = format!("ALTER TABLE `{}` FORCE", table.replace('`', "``"));
            sqlx::query(sqlx::AssertSqlSafe(sql)).execute(self.pool()).await.map_err(db_err)?;
            tracing::info!(table, "rebuilt the table so that the server encrypts it");
            rebuilt.push(table.clone());
        }
        Ok(rebuilt)
    }

    /// Whether the server encrypts new tables by default (`innodb_encrypt_tables` ON or
    /// FORCE); `None` when it cannot say (not MariaDB).
    async fn encrypts_by_default(&self) -> Option<bool> {
        let value: Option<String> = sqlx::query_scalar("SELECT CAST(@@GLOBAL.innodb_encrypt_tables AS CHAR)")
            .fetch_optional(self.pool())
            .await
            .ok()
            .flatten();
        value.map(|v| v.eq_ignore_ascii_case("ON") || v.eq_ignore_ascii_case("FORCE"))
    }

    async fn read_encryption(&self) -> Result<EncryptionReport, StoreError> {
        // A server that does not encrypt by default lists only the tablespaces that asked
        // for encryption themselves: there, a table it does not list is not encrypted.
        let unlisted = match self.encrypts_by_default().await {
            Some(true) => TableEncryption::NotOpened,
            _ => TableEncryption::NotEncrypted,
        };
        let rows = sqlx::query(
            "SELECT SUBSTRING(t.NAME, LENGTH(DATABASE()) + 2) AS tbl, e.ENCRYPTION_SCHEME IS NOT NULL AS opened,
                    COALESCE(e.ENCRYPTION_SCHEME, 0) > 0 AS encrypted
             FROM information_schema.INNODB_SYS_TABLES AS t
             LEFT JOIN information_schema.INNODB_TABLESPACES_ENCRYPTION AS e ON e.SPACE = t.SPACE
             WHERE t.NAME LIKE CONCAT(DATABASE(), '/%') ORDER BY t.NAME",
        )
        .fetch_all(self.pool())
        .await
        .map_err(|e| match db_err(e) {
            StoreError::Database(detail) => StoreError::Database(format!(
                "cannot read which tables the server encrypts ({detail}); this needs MariaDB and the PROCESS privilege"
            )),
            other => other,
        })?;
        let tables = rows
            .iter()
            .map(|row| {
                let state = match (row.try_get::<i64, _>("opened").map_err(db_err)? != 0, row.try_get::<i64, _>("encrypted").map_err(db_err)? != 0) {
                    (false, _) => unlisted,
                    (true, true) => TableEncryption::Encrypted,
                    (true, false) => TableEncryption::NotEncrypted,
                };
                Ok((row.try_get::<String, _>("tbl").map_err(db_err)?, state))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(EncryptionReport { tables })
    }
}
