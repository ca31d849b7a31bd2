//! Encryption at rest on MySQL/MariaDB is the server's: InnoDB encrypts tablespaces with
//! keys from a key management plugin (`file_key_management`, a KMS plugin), the redo log
//! and temporary files with it when told to. The service cannot do it for the server, so
//! it reports what the server does: [`MySqlStore::encryption_report`] lists each table
//! of this database (the FULLTEXT index's own auxiliary tables included) and whether its
//! tablespace is encrypted, and `serve` warns at start when one is not.

use sqlx::Row as _;

use crate::rows::db_err;
use crate::MySqlStore;
use memory_bank_store::StoreError;

/// Each InnoDB table of the database and whether its tablespace is encrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptionReport {
    /// `(table, encrypted)`, by name; FULLTEXT auxiliary tables appear as `FTS_…`.
    pub tables: Vec<(String, bool)>,
}

impl EncryptionReport {
    /// True when every table is encrypted (and there is at least one).
    pub fn all_encrypted(&self) -> bool {
        !self.tables.is_empty() && self.tables.iter().all(|(_, encrypted)| *encrypted)
    }

    /// The tables that are not encrypted.
    pub fn plaintext_tables(&self) -> Vec<&str> {
        self.tables.iter().filter(|(_, e)| !e).map(|(t, _)| t.as_str()).collect()
    }

    /// One line per table, then a summary.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> =
            self.tables.iter().map(|(t, e)| format!("  {t}: {}", if *e { "encrypted" } else { "NOT encrypted" })).collect();
        lines.insert(
            0,
            if self.all_encrypted() {
                format!("encrypted: yes (all {} InnoDB tables)", self.tables.len())
            } else {
                format!("encrypted: no ({} of {} InnoDB tables are not)", self.plaintext_tables().len(), self.tables.len())
            },
        );
        lines
    }
}

impl MySqlStore {
    /// What the server encrypts of this database (MariaDB: `information_schema`
    /// `INNODB_SYS_TABLES` and `INNODB_TABLESPACES_ENCRYPTION`; needs the PROCESS privilege).
    pub async fn encryption_report(&self) -> Result<EncryptionReport, StoreError> {
        let rows = sqlx::query(
            "SELECT SUBSTRING(t.NAME, LENGTH(DATABASE()) + 2) AS tbl, COALESCE(e.ENCRYPTION_SCHEME, 0) > 0 AS encrypted
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
            .map(|row| Ok((row.try_get::<String, _>("tbl").map_err(db_err)?, row.try_get::<i64, _>("encrypted").map_err(db_err)? != 0)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(EncryptionReport { tables })
    }
}
