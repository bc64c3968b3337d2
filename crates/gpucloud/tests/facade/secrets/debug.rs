//! The `Debug` of configs and clients, and plans in every rendering: no credential shows.

use super::{assert_no_secret, runcrate_spec};
use crate::support::*;

#[tokio::test]
async fn configs_clients_and_plans_show_no_secret() {
    let api = Api::start().await;
    let configs = [
        format!("{:?}", api.together_config()),
        format!("{:#?}", api.runcrate_config()),
        format!("{:?}", api.e2e_config()),
        format!(
            "{:?}",
            api.e2e_config()
                .with_credentials(E2E_API_KEY, E2E_TOKEN)
                .with_active_iam(7)
        ),
    ];
    for text in &configs {
        assert_no_secret("config Debug", text);
        assert!(text.contains("REDACTED"), "{text}");
    }
    let clients = [
        (api.together(), together_spec()),
        (api.runcrate(), runcrate_spec()),
        (api.e2e(), e2e_spec()),
    ];
    for (client, spec) in &clients {
        assert_no_secret("client Debug", &format!("{client:?} {client:#?}"));
        let plan = client.plan(spec).await.unwrap();
        assert_no_secret(
            "plan",
            &format!(
                "{plan}\n{plan:?}\n{}",
                serde_json::to_string(&plan).unwrap()
            ),
        );
    }
    assert!(api.all().await.is_empty());
}
