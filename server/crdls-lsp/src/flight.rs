//! Work that runs one at a time and coalesces: asked while it runs, it runs once more afterwards,
//! however many times it was asked, with what those asks wanted merged into one request. The workspace
//! scan and its network follow-up (the refresh of the CRD sources) run this way, so a burst of refresh
//! commands or settings changes costs at most two runs, not one concurrent download per ask.

use std::sync::Mutex;

use crate::session::lock;

/// One kind of coalesced work; `T` is what a run is asked to do.
#[derive(Debug)]
pub(crate) struct Flight<T> {
    state: Mutex<State<T>>,
}

#[derive(Debug)]
struct State<T> {
    /// A run is going on (its runner will look at `again` when it ends).
    running: bool,
    /// What the run after the current one must do, merged from every ask since the current one began.
    again: Option<T>,
}

impl<T> Default for Flight<T> {
    fn default() -> Self {
        Flight { state: Mutex::new(State { running: false, again: None }) }
    }
}

impl<T> Flight<T> {
    /// Asks for a run of `request`. Returns it when nothing runs: the caller then runs it, and calls
    /// [`Flight::next`] after each run. Otherwise the request is merged (by `merge`, the earlier
    /// request first) into the one run that follows the current one, and `None` is returned.
    pub(crate) fn ask(&self, request: T, merge: impl FnOnce(T, T) -> T) -> Option<T> {
        let mut state = lock(&self.state);
        if !state.running {
            state.running = true;
            return Some(request);
        }
        state.again = Some(match state.again.take() {
            Some(earlier) => merge(earlier, request),
            None => request,
        });
        None
    }

    /// Called by the runner when a run ends: the request to run next (the flight stays busy), or
    /// `None`, and the flight is idle.
    pub(crate) fn next(&self) -> Option<T> {
        let mut state = lock(&self.state);
        let again = state.again.take();
        state.running = again.is_some();
        again
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_during_a_run_coalesce_into_one_more_run() {
        let flight = Flight::default();
        let merge = |a: Vec<u32>, b: Vec<u32>| [a, b].concat();
        assert_eq!(flight.ask(vec![1], merge), Some(vec![1]));
        for i in 2..=40 {
            assert_eq!(flight.ask(vec![i], merge), None);
        }
        assert_eq!(flight.next(), Some((2..=40).collect::<Vec<u32>>()));
        assert_eq!(flight.ask(vec![41], merge), None);
        assert_eq!(flight.next(), Some(vec![41]));
        assert_eq!(flight.next(), None);
        // Idle again: the next ask runs at once.
        assert_eq!(flight.ask(vec![42], merge), Some(vec![42]));
        assert_eq!(flight.next(), None);
    }
}
