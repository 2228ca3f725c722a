-- The payments list sorted by amount compares amounts within a currency (minor units of different
-- currencies are not comparable): currency first, then amount, then id, read forwards for the
-- largest first and backwards for the smallest. payments_amount_idx stays: the amount search
-- (an exact amount in a list of currencies) looks amounts up through it.
CREATE INDEX payments_currency_amount_idx ON payments (currency, amount DESC NULLS LAST, id DESC);
