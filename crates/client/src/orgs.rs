//! An org's own routes (`docs/teams.md`): its Inbox, members, policy and audit log, as
//! the owners' page in Settings and the org Inbox read and change them.

use memory_bank_contract::teams::{AuditPage, ChangeRoleRequest, OrgMembersResponse, OrgPolicy, Role};
use memory_bank_contract::wire::{ProposalListResponse, ProposalStatus};
use reqwest::Method;

use crate::{Client, ClientError};

impl Client {
    /// `GET /v1/proposals?scope=team` in `org`: the org Inbox for its admins and owners, a
    /// member's own team proposals for a member (the answer's `your_role` says which).
    pub async fn list_team_proposals(
        &self,
        org: &str,
        status: Option<ProposalStatus>,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<ProposalListResponse, ClientError> {
        let mut params = vec![("scope", "team".to_owned())];
        params.extend(status.map(|s| ("status", s.as_str().to_owned())));
        params.extend(limit.map(|l| ("limit", l.to_string())));
        params.extend(cursor.map(|c| ("cursor", c.to_owned())));
        self.json(self.request(Method::GET, "v1/proposals", Some(org))?.query(&params)).await
    }

    /// `GET /v1/orgs/{org}/members`: its members and the caller's role.
    pub async fn org_members(&self, org: &str) -> Result<OrgMembersResponse, ClientError> {
        self.json(self.http.get(self.org_url(org, &["members"])?).bearer_auth(&self.token)).await
    }

    /// `PUT /v1/orgs/{org}/members/{user}`: gives a member a role; the members after.
    pub async fn change_role(&self, org: &str, user: &str, role: Role) -> Result<OrgMembersResponse, ClientError> {
        let url = self.org_url(org, &["members", user])?;
        self.json(self.http.put(url).bearer_auth(&self.token).json(&ChangeRoleRequest { role })).await
    }

    /// `DELETE /v1/orgs/{org}/members/{user}`: removes a member (or the caller leaves).
    pub async fn remove_member(&self, org: &str, user: &str) -> Result<(), ClientError> {
        let url = self.org_url(org, &["members", user])?;
        self.send(self.http.delete(url).bearer_auth(&self.token)).await.map(drop)
    }

    /// `GET /v1/orgs/{org}/policy`.
    pub async fn org_policy(&self, org: &str) -> Result<OrgPolicy, ClientError> {
        self.json(self.http.get(self.org_url(org, &["policy"])?).bearer_auth(&self.token)).await
    }

    /// `PUT /v1/orgs/{org}/policy` (owners): the policy now in force.
    pub async fn set_org_policy(&self, org: &str, policy: &OrgPolicy) -> Result<OrgPolicy, ClientError> {
        self.json(self.http.put(self.org_url(org, &["policy"])?).bearer_auth(&self.token).json(policy)).await
    }

    /// `GET /v1/orgs/{org}/audit` (admins and owners): one page, newest first.
    pub async fn org_audit(&self, org: &str, limit: Option<u32>, before: Option<i64>) -> Result<AuditPage, ClientError> {
        let mut params = Vec::new();
        params.extend(limit.map(|l| ("limit", l.to_string())));
        params.extend(before.map(|b| ("before", b.to_string())));
        self.json(self.http.get(self.org_url(org, &["audit"])?).bearer_auth(&self.token).query(&params)).await
    }

    /// `GET /v1/orgs/{org}/export` (admins and owners): the team bank's memory lines, then
    /// its audit lines, streamed into `sink`.
    pub async fn export_team(&self, org: &str, sink: impl FnMut(&[u8]) -> std::io::Result<()>) -> Result<(), ClientError> {
        self.stream_export(self.http.get(self.org_url(org, &["export"])?).bearer_auth(&self.token), sink).await
    }

    /// `v1/orgs/{org}/{rest…}`, each id its own encoded path segment.
    fn org_url(&self, org: &str, rest: &[&str]) -> Result<reqwest::Url, ClientError> {
        let bad = || ClientError::BadUrl(self.base.to_string());
        let mut url = self.base.join("v1/orgs/").map_err(|_| bad())?;
        url.path_segments_mut().map_err(|_| bad())?.pop_if_empty().push(org).extend(rest);
        Ok(url)
    }
}
