//! `/_sim/capacity`: what each provider's offerings have left, over HTTP.
//!
//! - `GET`: every offering (`provider`, its ids, `gpu_model`, `family`, `unit`, `available`,
//!   `in_use`).
//! - `PUT` with `{"provider", "gpu_model", "available_gpus" | "available_nodes"}` and optional
//!   narrowing ids (`region` for Together, `offer_id` for Runcrate, `sku_id` and `location`
//!   for E2E): sets what creates may still take from every matching offering and answers
//!   those offerings. No match is a 404 listing what the provider has; a bad body a 400
//!   naming the field, and nothing is changed.
//! - `DELETE`: every offering back to its default; answers them all.

use serde_json::{Map, Value, json};

use super::method_not_allowed;
use crate::capacity::{CapacityFilter, Offering, OfferingKey};
use crate::provider::Provider;
use crate::providers::capacity::Capacity;
use crate::reply::Reply;

/// The capacity resource.
pub(crate) const PATH: &str = "/_sim/capacity";
/// The largest amount accepted: far beyond any real offering, small enough to add safely.
const MAX_AMOUNT: u64 = 1_000_000;

/// Answers a request to `/_sim/capacity`.
pub(crate) fn handle(capacity: &Capacity, method: &http::Method, body: &[u8]) -> Reply {
    match *method {
        http::Method::GET => listing(&capacity.list()),
        http::Method::DELETE => {
            capacity.reset();
            listing(&capacity.list())
        }
        http::Method::PUT => {
            let (filter, available) = match parse(body) {
                Ok(setting) => setting,
                Err(message) => return Reply::json(400, json!({ "error": message })),
            };
            match capacity.set(&filter, available) {
                Ok(changed) => listing(&changed),
                Err(none) => Reply::json(
                    404,
                    json!({
                        "error": none.to_string(),
                        "offerings": none.offerings.iter().map(render).collect::<Vec<_>>(),
                    }),
                ),
            }
        }
        _ => method_not_allowed(method, PATH, "GET, PUT, DELETE"),
    }
}

fn listing(offerings: &[Offering]) -> Reply {
    let list: Vec<Value> = offerings.iter().map(render).collect();
    Reply::json(200, json!({ "offerings": list }))
}

/// An offering as the control API shows it: the provider's own ids at the top level.
fn render(offering: &Offering) -> Value {
    let mut object = json!({
        "provider": offering.key.provider().as_str(),
        "gpu_model": offering.gpu_model,
        "family": offering.family,
        "unit": offering.unit.as_str(),
        "available": offering.available,
        "in_use": offering.in_use,
    });
    match &offering.key {
        OfferingKey::Together { region, gpu_type } => {
            object["region"] = json!(region);
            object["gpu_type"] = json!(gpu_type);
        }
        OfferingKey::Runcrate { offer_id } => object["offer_id"] = json!(offer_id),
        OfferingKey::E2e { sku_id, location } => {
            object["sku_id"] = json!(sku_id);
            object["location"] = json!(location);
        }
    }
    object
}

/// The fields only one provider takes, with that provider.
const NARROWING: &[(&str, Provider)] = &[
    ("region", Provider::Together),
    ("offer_id", Provider::Runcrate),
    ("sku_id", Provider::E2e),
    ("location", Provider::E2e),
];

/// The filter and the amount of a `PUT` body, or why not (naming the field).
fn parse(body: &[u8]) -> Result<(CapacityFilter, u32), String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        format!("body: not JSON ({e}); expected an object with provider, gpu_model and an amount")
    })?;
    let Value::Object(object) = value else {
        return Err("body: expected an object with provider, gpu_model and an amount".into());
    };
    let provider: Provider = match object.get("provider") {
        None => return Err("provider: is required (together, runcrate or e2e)".into()),
        Some(Value::String(name)) => name
            .parse()
            .map_err(|_| "provider: must be together, runcrate or e2e".to_string())?,
        Some(_) => return Err("provider: must be a string".into()),
    };
    // Together sells GPUs, the others machines: the field says which the caller means.
    let (amount, other) = match provider {
        Provider::Together => ("available_gpus", "available_nodes"),
        Provider::Runcrate | Provider::E2e => ("available_nodes", "available_gpus"),
    };
    for key in object.keys() {
        let key = key.as_str();
        if key == other {
            let unit = if provider == Provider::Together {
                "GPUs"
            } else {
                "nodes"
            };
            return Err(format!("{key}: {provider} counts {unit}: give {amount}"));
        }
        if let Some((_, owner)) = NARROWING.iter().find(|(field, _)| *field == key) {
            if *owner != provider {
                return Err(format!("{key}: applies only to {owner}"));
            }
        } else if !["provider", "gpu_model", amount].contains(&key) {
            return Err(format!("{key}: is not a field of a capacity setting"));
        }
    }
    let gpu_model = match object.get("gpu_model") {
        None => {
            return Err(
                "gpu_model: is required: the provider's word (H100_SXM, H100 80GB SXM, H100) or a family (H100, H200, B200, …)"
                    .into(),
            );
        }
        Some(Value::String(model)) if !model.trim().is_empty() => model.trim().to_string(),
        Some(_) => return Err("gpu_model: must be a non-empty string".into()),
    };
    let available = match object.get(amount) {
        None => return Err(format!("{amount}: is required (a whole number ≥ 0)")),
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= MAX_AMOUNT)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("{amount}: must be a whole number in 0..={MAX_AMOUNT}"))?,
    };
    let mut filter = CapacityFilter::new(provider, gpu_model);
    filter.region = text(&object, "region")?;
    filter.offer_id = text(&object, "offer_id")?;
    filter.location = text(&object, "location")?;
    filter.sku_id = match object.get("sku_id") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .ok_or_else(|| "sku_id: must be a whole number".to_string())?,
        ),
    };
    Ok((filter, available))
}

/// An optional string field.
fn text(object: &Map<String, Value>, field: &str) -> Result<Option<String>, String> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(_) => Err(format!("{field}: must be a non-empty string")),
    }
}
