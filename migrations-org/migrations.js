import journal from './meta/_journal.json';
import m0000 from './0000_inventory.sql';
import m0001 from './0001_inventory_updated_at.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001
    }
  }
  