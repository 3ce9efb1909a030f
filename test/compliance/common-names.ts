/**
 * Common US customer names of many origins, for counting the screen's false positives
 * (docs/domain/screening.md#false-positives-on-common-names). Each origin pairs its most common
 * surnames with common given names; dates of birth come from a seeded generator, so every run
 * screens the same customers.
 */
const ORIGINS: Record<string, { given: string[]; surnames: string[] }> = {
  "Anglo-American": {
    given: ["James", "Mary", "John", "Patricia", "Robert", "Jennifer"],
    surnames: ["Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Taylor", "Moore"],
  },
  Hispanic: {
    given: ["Jose", "Maria", "Juan", "Ana", "Luis", "Carmen"],
    surnames: ["Garcia", "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Perez", "Sanchez", "Ramirez", "Torres"],
  },
  Vietnamese: {
    given: ["Minh", "Linh", "Thanh", "Hoa", "Tuan", "Lan"],
    surnames: ["Nguyen", "Tran", "Le", "Pham", "Hoang", "Phan", "Vu", "Dang", "Bui", "Do"],
  },
  Chinese: {
    given: ["Wei", "Li", "Jing", "Hui", "Ming", "Xiu"],
    surnames: ["Chen", "Wang", "Li", "Zhang", "Liu", "Yang", "Huang", "Zhao", "Wu", "Zhou"],
  },
  Korean: {
    given: ["Min-jun", "Ji-woo", "Seo-yeon", "Jae", "Hyun", "Soo"],
    surnames: ["Kim", "Lee", "Park", "Choi", "Jung", "Kang", "Cho", "Yoon", "Jang", "Lim"],
  },
  "South Asian": {
    given: ["Raj", "Priya", "Amit", "Sunita", "Vikram", "Anjali"],
    surnames: ["Patel", "Shah", "Singh", "Kumar", "Sharma", "Gupta", "Khan", "Reddy", "Desai", "Mehta"],
  },
  Arab: {
    given: ["Mohammed", "Ahmed", "Ali", "Fatima", "Omar", "Hassan"],
    surnames: ["Ali", "Hussein", "Mohammed", "Ahmed", "Hassan", "Ibrahim", "Abdullah", "Saleh", "Khalil", "Mahmoud"],
  },
  Persian: {
    given: ["Reza", "Maryam", "Ali", "Zahra", "Hossein", "Mehdi"],
    surnames: ["Hosseini", "Mohammadi", "Rezaei", "Ahmadi", "Karimi", "Jafari", "Rahimi", "Moradi", "Ebrahimi", "Hashemi"],
  },
  Jewish: {
    given: ["David", "Sarah", "Daniel", "Rachel", "Michael", "Leah"],
    surnames: ["Cohen", "Levy", "Friedman", "Katz", "Goldberg", "Shapiro", "Klein", "Rosen", "Weiss", "Schwartz"],
  },
  "West African": {
    given: ["Chinedu", "Ngozi", "Oluwaseun", "Amaka", "Kwame", "Abena"],
    surnames: ["Okafor", "Adeyemi", "Okonkwo", "Mensah", "Eze", "Balogun", "Nwosu", "Boateng", "Ogunleye", "Diallo"],
  },
  Slavic: {
    given: ["Ivan", "Olga", "Sergei", "Natalia", "Dmitri", "Elena"],
    surnames: ["Ivanov", "Petrov", "Smirnov", "Kuznetsov", "Popov", "Volkov", "Kowalski", "Novak", "Sokolov", "Morozov"],
  },
  "Filipino and Somali": {
    given: ["Maria", "Jose", "Abdi", "Amina", "Mark", "Hodan"],
    surnames: ["Santos", "Reyes", "Cruz", "Bautista", "Mendoza", "Mohamed", "Abdi", "Farah", "Warsame", "Osman"],
  },
};

/** mulberry32: a small seeded generator, so the count is the same on every run. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface CommonCustomer {
  origin: string;
  firstName: string;
  lastName: string;
  dob: string;
}

const FIRST_DOB = Date.UTC(1946, 0, 1);
const LAST_DOB = Date.UTC(2006, 11, 31);

/** Two customers per surname (two given names each), with plausible dates of birth: born 1946–2006. */
export function commonCustomers(seed = 20261126): CommonCustomer[] {
  const random = seeded(seed);
  const customers: CommonCustomer[] = [];
  for (const [origin, { given, surnames }] of Object.entries(ORIGINS)) {
    surnames.forEach((lastName, i) => {
      for (const firstName of [given[i % given.length], given[(i + 3) % given.length]]) {
        const dob = new Date(FIRST_DOB + Math.floor(random() * (LAST_DOB - FIRST_DOB))).toISOString().slice(0, 10);
        customers.push({ origin, firstName, lastName, dob });
      }
    });
  }
  return customers;
}
