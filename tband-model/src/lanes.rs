//! Lanes for things that overlap in time (tracked objects, heap blocks):
//! each takes the lowest lane free at its start, so that a lane holds one
//! thing at a time and the lanes stay few.

#[derive(Clone, Debug, Default)]
pub(crate) struct Lanes {
    busy: Vec<bool>,
}

impl Lanes {
    /// Takes the lowest free lane.
    pub(crate) fn take(&mut self) -> u32 {
        let lane = match self.busy.iter().position(|busy| !busy) {
            Some(free) => free,
            None => {
                self.busy.push(false);
                self.busy.len() - 1
            }
        };
        self.busy[lane] = true;
        lane as u32
    }

    pub(crate) fn release(&mut self, lane: u32) {
        if let Some(busy) = self.busy.get_mut(lane as usize) {
            *busy = false;
        }
    }

    /// How many lanes were ever needed at once.
    pub(crate) fn count(&self) -> u32 {
        self.busy.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::Lanes;

    #[test]
    fn the_lowest_free_lane_is_taken() {
        let mut lanes = Lanes::default();
        assert_eq!((lanes.take(), lanes.take(), lanes.take()), (0, 1, 2));
        lanes.release(1);
        lanes.release(0);
        assert_eq!(lanes.take(), 0);
        assert_eq!(lanes.take(), 1);
        assert_eq!(lanes.take(), 3);
        assert_eq!(lanes.count(), 4);
    }
}
