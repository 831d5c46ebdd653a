// A data table of the sandbox generator (src/sandbox/generator.ts): values, and the small per-country
// name and phone pickers. People and places: per-country tax, names, phones, cities and streets.
import type { Store } from '../../schema/index.js';
import type { Prng } from '../prng.js';

/** Malaysian ethnic groups and their share of generated names. */
export const MY_GROUPS = ['malay', 'chinese', 'indian'] as const;
export const MY_GROUP_WEIGHTS = [55, 30, 15];

export interface City {
  city: string;
  state: string | null;
  zip: string;
  lat: number;
  lng: number;
  districts: readonly string[];
  streets: readonly string[];
}

export interface CountryInfo {
  timezone: string;
  tax: Store['tax'];
  serviceCharge: Store['service_charge'];
  name: (r: Prng) => string;
  phone: (r: Prng) => string;
  cities: readonly City[];
}

export function digits(r: Prng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(r.int(0, 9));
  return s;
}

/** A "given family" name picker. */
export function westernName(given: readonly string[], family: readonly string[]): (r: Prng) => string {
  return (r) => `${r.pick(given)} ${r.pick(family)}`;
}

export const MALAY_MALE = ['Muhammad Hafiz', 'Ahmad Faiz', 'Amirul', 'Hakim', 'Syafiq', 'Azlan'];
export const MALAY_FEMALE = ['Nur Aisyah', 'Siti Nurhaliza', 'Farah', 'Nadia', 'Aina', "Nur'ain"];
export const MALAY_FATHER = ['Abdullah', 'Ibrahim', 'Rahman', 'Ismail', 'Osman', 'Yusof'];
export const CHINESE_FAMILY = ['Tan', 'Lim', 'Ng', 'Wong', 'Chong', 'Lee', 'Ong', 'Teh'];
export const CHINESE_GIVEN = ['Wei Ming', 'Mei Ling', 'Kar Hoe', 'Li Ying', 'Jia Hui', 'Zhi Hao', 'Chloé'];
export const INDIAN_MALE = ['Arjun', 'Ganesh', 'Suresh', 'Vikram'];
export const INDIAN_FEMALE = ['Priya', 'Kavitha', 'Deepa', 'Anitha'];
export const INDIAN_FATHER = ['Subramaniam', 'Raj', 'Krishnan', 'Muthu', 'Pillai'];

/** Malaysian naming: Malay (bin/binti), Chinese (family name first), Indian (a/l, a/p). */
export function malaysianName(r: Prng): string {
  const kind = r.weighted(MY_GROUPS, MY_GROUP_WEIGHTS);
  if (kind === 'chinese') return `${r.pick(CHINESE_FAMILY)} ${r.pick(CHINESE_GIVEN)}`;
  const female = r.chance(0.5);
  if (kind === 'indian') {
    return `${r.pick(female ? INDIAN_FEMALE : INDIAN_MALE)} ${female ? 'a/p' : 'a/l'} ${r.pick(INDIAN_FATHER)}`;
  }
  if (r.chance(0.4)) return r.pick(female ? MALAY_FEMALE : MALAY_MALE);
  return `${r.pick(female ? MALAY_FEMALE : MALAY_MALE)} ${female ? 'binti' : 'bin'} ${r.pick(MALAY_FATHER)}`;
}

export const COUNTRIES: Readonly<Record<string, CountryInfo>> = {
  MY: {
    timezone: 'Asia/Kuala_Lumpur',
    tax: { inclusive: false, percent: 6 },
    serviceCharge: { name: 'Service charge', rate: 10, amount: 0 },
    name: malaysianName,
    phone: (r) =>
      r.chance(0.15)
        ? `6011${r.pick(['1', '2', '3', '5'])}${digits(r, 7)}`
        : `601${r.pick(['2', '6', '9'])}${digits(r, 7)}`,
    cities: [
      {
        city: 'Kuala Lumpur',
        state: 'Wilayah Persekutuan',
        zip: '59100',
        lat: 3.13,
        lng: 101.67,
        districts: ['Bangsar', 'Mont Kiara', 'Taman Tun Dr Ismail', 'Cheras'],
        streets: ['Jalan Telawi 3', 'Jalan Kiara 3', 'Lorong Rahim Kajai 14', 'Jalan Cerdas'],
      },
      {
        city: 'Petaling Jaya',
        state: 'Selangor',
        zip: '47300',
        lat: 3.12,
        lng: 101.62,
        districts: ['SS2', 'Damansara Utama', 'Seksyen 17'],
        streets: ['Jalan SS 2/24', 'Jalan SS 21/37', 'Jalan 17/45'],
      },
      {
        city: 'Shah Alam',
        state: 'Selangor',
        zip: '40150',
        lat: 3.07,
        lng: 101.52,
        districts: ['Seksyen 13', 'Setia Alam', 'Kota Kemuning'],
        streets: ['Persiaran Perbandaran', 'Jalan Setia Prima', 'Jalan Anggerik Vanilla'],
      },
      {
        city: 'George Town',
        state: 'Pulau Pinang',
        zip: '10200',
        lat: 5.41,
        lng: 100.33,
        districts: ['Pulau Tikus', 'Tanjung Tokong'],
        streets: ['Lebuh Armenian', 'Jalan Burma', 'Persiaran Gurney'],
      },
      {
        city: 'Johor Bahru',
        state: 'Johor',
        zip: '81200',
        lat: 1.49,
        lng: 103.74,
        districts: ['Taman Molek', 'Mount Austin', 'Skudai'],
        streets: ['Jalan Molek 1/29', 'Jalan Austin Heights 8', 'Jalan Dhoby'],
      },
      {
        city: 'Ipoh',
        state: 'Perak',
        zip: '30250',
        lat: 4.6,
        lng: 101.08,
        districts: ['Ipoh Garden', 'Greentown'],
        streets: ['Jalan Sultan Yussuf', 'Jalan Kampar'],
      },
      {
        city: 'Kota Kinabalu',
        state: 'Sabah',
        zip: '88300',
        lat: 5.98,
        lng: 116.07,
        districts: ['Damai', 'Likas'],
        streets: ['Jalan Gaya', 'Jalan Damai'],
      },
      {
        city: 'Kuching',
        state: 'Sarawak',
        zip: '93350',
        lat: 1.55,
        lng: 110.36,
        districts: ['Tabuan Jaya', 'Padungan'],
        streets: ['Jalan Padungan', 'Jalan Song'],
      },
    ],
  },
  SG: {
    timezone: 'Asia/Singapore',
    tax: { inclusive: false, percent: 9 },
    serviceCharge: { name: 'Service charge', rate: 10, amount: 0 },
    name: (r) =>
      r.chance(0.6)
        ? `${r.pick(['Tan', 'Lee', 'Goh', 'Koh', 'Lim'])} ${r.pick(['Jun Jie', 'Hui Min', 'Shu Fen', 'Wei Lun'])}`
        : westernName(['Rachel', 'Marcus', 'Ravi', 'Siti', 'Daniel'], ['Tan', 'Pillai', 'Rahim', 'Ong'])(r),
    phone: (r) => `65${r.pick(['96', '97', '98', '81', '82', '83'])}${digits(r, 6)}`,
    cities: [
      {
        city: 'Singapore',
        state: null,
        zip: '238859',
        lat: 1.3,
        lng: 103.83,
        districts: ['Orchard', 'Tiong Bahru'],
        streets: ['Orchard Road', 'Tiong Bahru Road', 'Eng Hoon Street'],
      },
      {
        city: 'Singapore',
        state: null,
        zip: '529510',
        lat: 1.35,
        lng: 103.94,
        districts: ['Tampines', 'Bedok'],
        streets: ['Tampines Ave 4', 'Bedok North Road'],
      },
    ],
  },
  ID: {
    timezone: 'Asia/Jakarta',
    tax: { inclusive: true, percent: 11 },
    serviceCharge: null,
    name: (r) =>
      r.chance(0.4)
        ? r.pick(['Putri', 'Budi', 'Dewi', 'Agus', 'Rina', 'Eko'])
        : westernName(
            ['Putri', 'Budi', 'Dewi', 'Agus', 'Rina'],
            ['Santoso', 'Wijaya', 'Pratama', 'Lestari'],
          )(r),
    phone: (r) => `6281${r.pick(['1', '2', '3'])}${digits(r, 8)}`,
    cities: [
      {
        city: 'Jakarta Selatan',
        state: 'DKI Jakarta',
        zip: '12190',
        lat: -6.23,
        lng: 106.81,
        districts: ['Kebayoran Baru', 'Kemang'],
        streets: ['Jl. Senopati', 'Jl. Kemang Raya'],
      },
      {
        city: 'Bandung',
        state: 'Jawa Barat',
        zip: '40111',
        lat: -6.91,
        lng: 107.61,
        districts: ['Sumur Bandung'],
        streets: ['Jl. Braga', 'Jl. Riau'],
      },
      {
        city: 'Denpasar',
        state: 'Bali',
        zip: '80361',
        lat: -8.7,
        lng: 115.17,
        districts: ['Kuta', 'Seminyak'],
        streets: ['Jl. Sunset Road', 'Jl. Kayu Aya'],
      },
    ],
  },
  US: {
    timezone: 'America/New_York',
    tax: { inclusive: false, percent: 8.875 },
    serviceCharge: null,
    name: westernName(
      ['Emily', 'Michael', 'Sarah', 'David', 'Olivia', 'James'],
      ['Johnson', "O'Brien", 'Garcia', 'Nguyen', 'Smith'],
    ),
    phone: (r) =>
      `1${r.pick(['212', '415', '617', '312', '206', '512'])}${r.int(2, 9)}${digits(r, 2)}${digits(r, 4)}`,
    cities: [
      {
        city: 'New York',
        state: 'NY',
        zip: '10013',
        lat: 40.72,
        lng: -74.0,
        districts: ['SoHo', 'Tribeca'],
        streets: ['Broadway', 'Spring St'],
      },
      {
        city: 'San Francisco',
        state: 'CA',
        zip: '94110',
        lat: 37.75,
        lng: -122.41,
        districts: ['Mission District'],
        streets: ['Valencia St', 'Mission St'],
      },
      {
        city: 'Austin',
        state: 'TX',
        zip: '78704',
        lat: 30.24,
        lng: -97.77,
        districts: ['South Congress'],
        streets: ['South Congress Ave', 'Elizabeth St'],
      },
    ],
  },
  GB: {
    timezone: 'Europe/London',
    tax: { inclusive: true, percent: 20 },
    serviceCharge: { name: 'Optional service', rate: 12, amount: 0 },
    name: westernName(
      ['Oliver', 'Amelia', 'Harry', 'Isla', 'Priya', 'George', 'Zoë'],
      ['Smith', 'Jones', 'Taylor', 'Patel', 'Brown'],
    ),
    phone: (r) => `4478${r.pick(['4', '5', '6', '7', '9'])}${digits(r, 7)}`,
    cities: [
      {
        city: 'London',
        state: null,
        zip: 'E1 6AN',
        lat: 51.52,
        lng: -0.07,
        districts: ['Shoreditch', 'Spitalfields'],
        streets: ['Brick Lane', 'Commercial Street'],
      },
      {
        city: 'Manchester',
        state: null,
        zip: 'M4 1HN',
        lat: 53.48,
        lng: -2.23,
        districts: ['Northern Quarter'],
        streets: ['Oldham Street', 'Thomas Street'],
      },
    ],
  },
  AU: {
    timezone: 'Australia/Sydney',
    tax: { inclusive: true, percent: 10 },
    serviceCharge: null,
    name: westernName(
      ['Jack', 'Charlotte', 'Liam', 'Mia', 'Noah'],
      ['Wilson', 'Martin', 'Thompson', 'White', 'Chen'],
    ),
    phone: (r) => `614${r.pick(['0', '1', '3'])}${digits(r, 7)}`,
    cities: [
      {
        city: 'Sydney',
        state: 'NSW',
        zip: '2010',
        lat: -33.88,
        lng: 151.21,
        districts: ['Surry Hills', 'Darlinghurst'],
        streets: ['Crown St', 'Bourke St'],
      },
      {
        city: 'Melbourne',
        state: 'VIC',
        zip: '3065',
        lat: -37.8,
        lng: 144.98,
        districts: ['Fitzroy', 'Collingwood'],
        streets: ['Brunswick St', 'Smith St'],
      },
    ],
  },
  PH: {
    timezone: 'Asia/Manila',
    tax: { inclusive: true, percent: 12 },
    serviceCharge: null,
    name: westernName(
      ['Maria', 'Jose', 'Angelica', 'Mark', 'Kristine'],
      ['Santos', 'Reyes', 'Cruz', 'Bautista', 'Dela Cruz'],
    ),
    phone: (r) => `639${r.pick(['17', '18', '27', '15', '98'])}${digits(r, 7)}`,
    cities: [
      {
        city: 'Makati',
        state: 'Metro Manila',
        zip: '1226',
        lat: 14.55,
        lng: 121.02,
        districts: ['Poblacion', 'Legazpi Village'],
        streets: ['Ayala Avenue', 'Jupiter Street'],
      },
      {
        city: 'Cebu City',
        state: 'Cebu',
        zip: '6000',
        lat: 10.31,
        lng: 123.89,
        districts: ['Lahug'],
        streets: ['Osmeña Blvd', 'Gorordo Avenue'],
      },
    ],
  },
};
export const MY = COUNTRIES.MY as CountryInfo;
/** Where customers come from, besides the store's own country (which gets the largest share). */
export const CUSTOMER_COUNTRIES = ['MY', 'SG', 'ID', 'US', 'GB', 'AU', 'PH'];
