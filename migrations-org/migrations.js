import journal from './meta/_journal.json';
import m0000 from './0000_inventory.sql';
import m0001 from './0001_inventory_updated_at.sql';
import m0002 from './0002_unit_market_values.sql';
import m0003 from './0003_deals.sql';
import m0004 from './0004_event_outbox.sql';
import m0005 from './0005_compliance_checks.sql';
import m0006 from './0006_lender_decisions.sql';
import m0007 from './0007_settings.sql';
import m0008 from './0008_webhooks.sql';
import m0009 from './0009_briefings.sql';
import m0010 from './0010_lender_panels_and_thresholds.sql';
import m0011 from './0011_store_feeds.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001,
m0002,
m0003,
m0004,
m0005,
m0006,
m0007,
m0008,
m0009,
m0010,
m0011
    }
  }
  