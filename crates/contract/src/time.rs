//! Millisecond-precision UTC timestamps, serialized as `2026-11-29T22:25:11.123Z`.

use chrono::{DateTime, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A UTC instant with millisecond precision: what every row and response carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The current time, truncated to the millisecond.
    pub fn now() -> Self {
        Self(Utc::now().timestamp_millis())
    }

    /// From milliseconds since the Unix epoch.
    pub fn from_unix_ms(ms: i64) -> Self {
        Self(ms)
    }

    /// Milliseconds since the Unix epoch.
    pub fn unix_ms(self) -> i64 {
        self.0
    }

    /// As a chrono `DateTime<Utc>`.
    pub fn to_datetime(self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0).single().unwrap_or(DateTime::<Utc>::MIN_UTC)
    }

    /// From a chrono `DateTime`, dropping sub-millisecond precision.
    pub fn from_datetime(dt: DateTime<Utc>) -> Self {
        Self(dt.timestamp_millis())
    }

    /// RFC 3339 with exactly three fractional digits and `Z`.
    pub fn to_rfc3339(self) -> String {
        self.to_datetime().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        // chrono's own reasons ("premature end of input") do not say what to write.
        DateTime::parse_from_rfc3339(&text).map(|dt| Self::from_datetime(dt.with_timezone(&Utc))).map_err(|_| {
            serde::de::Error::custom(format!(
                "{text:?} is not a date and time; write one in RFC 3339 with its time zone, e.g. 2026-11-29T22:25:11.123Z"
            ))
        })
    }
}

impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::DateTime)))
            .description(Some("UTC, millisecond precision, e.g. 2026-11-29T22:25:11.123Z"))
            .into()
    }
}

impl utoipa::ToSchema for Timestamp {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_milliseconds() {
        let t = Timestamp::from_unix_ms(1_764_455_111_007);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, "\"2025-11-29T22:25:11.007Z\"");
        assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), t);
    }

    #[test]
    fn a_malformed_time_says_what_to_write() {
        for bad in ["\"2026-11-29\"", "\"2026-11-29 22:25\"", "\"yesterday\""] {
            let message = serde_json::from_str::<Timestamp>(bad).unwrap_err().to_string();
            assert!(message.contains("is not a date and time") && message.contains("e.g. 2026-11-29T22:25:11.123Z"), "{message}");
            assert!(!message.contains("premature"), "{message}");
        }
    }
}
