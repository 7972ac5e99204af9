"""The transition model trained longer on a lent GPU (issue 38): export here, train there."""
