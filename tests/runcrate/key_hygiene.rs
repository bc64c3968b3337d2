//! The API key never shows: not in transport errors, not in `Debug`, not in credential errors.

use gpucloud_integration_tests::mock_server;
use gpucloud_runcrate::{BuildError, Client, Error};

use crate::documented::documented_body_builder;
use crate::harness::{assert_no_key, client};
use crate::{CLUSTER_ID, KEY};

#[tokio::test]
async fn transport_error_does_not_show_the_key() {
    // Nothing listens on the discard port of the loopback address.
    let c = Client::from_api_key("http://127.0.0.1:9/api/v1", KEY).unwrap();
    let err = c
        .create_cluster()
        .body(documented_body_builder())
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::CommunicationError(_)), "{err:?}");
    assert_no_key(&err);
    let err = c.get_cluster().id(CLUSTER_ID).send().await.unwrap_err();
    assert!(matches!(err, Error::CommunicationError(_)), "{err:?}");
    assert_no_key(&err);
}

#[tokio::test]
async fn client_and_credentials_debug_hide_the_key_and_bad_keys_are_named_not_shown() {
    let server = mock_server().await;
    let c = client(&server);
    let debug = format!("{c:?}");
    assert!(!debug.contains(KEY), "{debug}");
    assert!(debug.contains("REDACTED"), "{debug}");

    let credentials = gpucloud_runcrate::auth::Credentials::new(KEY).unwrap();
    assert!(!format!("{credentials:?}").contains(KEY));

    let bad = "rc_live_Zx81 with space";
    let err = Client::from_api_key("http://127.0.0.1:9", bad).unwrap_err();
    assert!(matches!(err, BuildError::Credential(_)));
    assert_eq!(
        err.to_string(),
        "the API key contains whitespace, control or non-ASCII characters"
    );
    assert!(!format!("{err:?}").contains("Zx81"));
    let err = Client::from_api_key("http://127.0.0.1:9", "").unwrap_err();
    assert_eq!(err.to_string(), "the API key is empty");
}
