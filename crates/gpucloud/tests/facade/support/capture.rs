//! A tracing subscriber that keeps every line, for asserting on what would be logged.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Every log line emitted while a [`Capture`] is the default subscriber: span names with their
/// fields, and events with their level, target and fields.
#[derive(Clone, Default)]
pub struct Capture {
    lines: Arc<Mutex<Vec<String>>>,
    next_id: Arc<AtomicU64>,
}

impl Capture {
    /// The process-wide capture, installed as the global default subscriber on first use. A
    /// thread-scoped one would race with the other tests of this binary over tracing's
    /// per-callsite interest cache; this one sees every test's lines, so a test looks for
    /// its own (by a value only it uses).
    pub fn global() -> Self {
        static GLOBAL: std::sync::OnceLock<Capture> = std::sync::OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let capture = Capture::default();
                tracing::subscriber::set_global_default(capture.clone()).unwrap();
                capture
            })
            .clone()
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    fn push(&self, line: String) {
        self.lines.lock().unwrap().push(line);
    }
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!(" {}={:?}", field.name(), value));
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push_str(&format!(" {}={}", field.name(), value));
    }

    fn record_error(
        &mut self,
        field: &tracing::field::Field,
        value: &(dyn std::error::Error + 'static),
    ) {
        // The whole chain, as a formatting subscriber would print it.
        let mut text = format!("{value} / {value:?}");
        let mut source = value.source();
        while let Some(inner) = source {
            text.push_str(&format!(" / caused by {inner} / {inner:?}"));
            source = inner.source();
        }
        self.0.push_str(&format!(" {}={}", field.name(), text));
    }
}

impl tracing::Subscriber for Capture {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }

    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut fields = Fields(String::new());
        span.record(&mut fields);
        self.push(format!("span {}:{}", span.metadata().name(), fields.0));
        tracing::span::Id::from_u64(self.next_id.fetch_add(1, Ordering::SeqCst) + 1)
    }

    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut fields = Fields(String::new());
        values.record(&mut fields);
        self.push(format!("record:{}", fields.0));
    }

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        let meta = event.metadata();
        self.push(format!("{} {}:{}", meta.level(), meta.target(), fields.0));
    }

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}
