/** The inputs of a trade appraisal: table rows (already resolved for the organization) and the unit. */

export interface AppraisalSettings {
  minComps: number;
  compSoldWithinDays: number;
  mileageRateFloor: number;
  mileageRatePer25k: number;
  mileageFactorAge4To7: number;
  mileageFactorAge8Plus: number;
  mileageDeductionCapPct: number;
  mileageBonusCapPct: number;
  highMileageThreshold: number;
  highMileagePenaltyPct: number;
  residualFloorPct: number;
  valueFloor: number;
  daysToSell: number;
  negotiationDiscountPct: number;
  negotiationMinGap: number;
  wholesaleProceedsPct: number;
  wholesaleFees: number;
  wholesaleMargin: number;
  wholesaleFloor: number;
  outlierRetentionRatio: number;
  retailCheckAgeYears: number;
  studyAgeOffsetYears: number;
}

export interface ReconItem {
  itemKey: string;
  label: string;
  cost: number;
  /** Cost of each occurrence after the first; null: the item is priced once. */
  additionalCost: number | null;
  maxCount: number;
  always: boolean;
  /** Comma-separated item keys whose damage, named in the same clause, includes this line. */
  includedIn: string;
  /** Set: not a retail line; the unit is appraised to wholesale, this % off the auction value. */
  wholesaleDiscountPct: number | null;
  /** `axle`: front and rear are two; `panel`: each panel the clause names is one; '': the count words say. */
  unit: string;
  /** The odometer is not to be believed: no low-mileage bonus. */
  noMileageBonus: boolean;
  /** Why the line moves the number (a brand's legal reason), said in the note. */
  reason: string;
  source: string;
}

export interface ReconKeyword {
  keyword: string;
  itemKey: string;
  weak: boolean;
  /** Names a part (where), not damage (what). */
  part: boolean;
  /** '' for every unit; else the keyword means its item only on a unit of this retention class. */
  retentionClass: string;
}

export interface RetentionClass {
  retentionClass: string;
  lossScale: number;
  lowMileageBonus: boolean;
  /** Comma-separated words that, in the model or trim, put a unit in this class. */
  nameWords: string;
  /** Comma-separated fuel types (model table or VIN decode) that put a unit in this class. */
  fuelTypes: string;
}

/**
 * A model's published loss at an age (docs/domain/appraisal.md#model-retention): model `*` is its make's
 * figure, make and model `*` all vehicles'. The five-year loss is read against the same study's
 * all-vehicle loss; a later age against the same source's five-year loss.
 */
export interface ModelRetention {
  make: string;
  model: string;
  ageYears: number;
  pctValueLost: number;
  overallPctValueLost: number;
  studyYear: number;
  publisher: string;
  source: string;
  quote: string;
}

export interface AppraisalReference {
  settings: AppraisalSettings;
  reconItems: ReconItem[];
  reconKeywords: ReconKeyword[];
  priceClasses: {
    classKey: string;
    newPrice: number;
    retentionClass: string;
    fallbackBodyClass: string;
    fallbackFuelType: string;
    /** False: the step beyond the high-mileage threshold does not apply (diesel heavy-duty pickups). */
    highMileageStep: boolean;
    /** False: no published study measures the class's retention; its curve is borrowed (heavy-duty pickups, full-size vans). */
    retentionMeasured: boolean;
  }[];
  modelClasses: {
    make: string;
    model: string;
    classKey: string;
    bodyClass: string;
    fuelType: string;
    /** Comma-separated trims priced far above the row's class with no row of their own. */
    aboveClassTrims: string;
    /** Set: the row prices only these model years (a year whose new price stood far from today's); null: every year. */
    modelYearFrom: number | null;
    modelYearTo: number | null;
  }[];
  modelRetention: ModelRetention[];
  retentionCurve: { ageYears: number; residualPct: number }[];
  retentionClasses: RetentionClass[];
  expectedMiles: { fromAgeYears: number; milesPerYear: number }[];
  regionalIndex: { zipPrefix: string; marketIndex: number; label: string }[];
}

/** The pricing store's figures that bound what the dealer can pay. */
export interface StoreEconomics {
  name: string;
  marketZip: string;
  packUsed: number;
  holdingCostPerDay: number;
  holdingHighValueCost: number;
  holdingHighValueDailyPct: number;
  targetFrontGrossUsedPct: number;
  targetFrontGrossUsedMin: number;
}

/** A unit of the organization's own: in stock (asking price, today) or sold (selling price, on the sale date). */
export interface Comparable {
  source: "in_stock" | "sold";
  year: number;
  /** Null for a sale whose unit is no longer in the inventory (deals do not carry the trim). */
  trim: string | null;
  /** Null for a sale whose unit's odometer is not on file: it is taken at the expected mileage. */
  mileage: number | null;
  price: number;
  /** YYYY-MM-DD the price was observed. */
  observedOn: string;
}

export interface VisionFinding {
  itemKey: string;
  count: number;
}

/** What became of the photos. */
export type PhotoAnalysis =
  | { status: "none" }
  | { status: "not_configured"; photos: number }
  | { status: "failed"; photos: number }
  | { status: "analysed"; photos: number; findings: VisionFinding[] };

export interface AppraisalSubject {
  year: number;
  make: string;
  model: string;
  trim?: string;
  mileage: number;
  conditionNotes?: string;
  /** From a VIN decode: `gas`, `diesel`, `hybrid`, `plug-in`, `electric`; absent, the model table's. */
  fuelType?: string;
  /** From a VIN decode (vPIC's body class, reduced): absent, the model table's. */
  bodyClass?: string;
  /** From a VIN decode whose trim is a list ("SR/SR5/TRD Pro"), sent without a trim: the trims it may be. */
  decodedTrims?: string[];
  /** A VIN was sent whose maker code (WMI) the loaded vPIC data lacks: the VIN confirms nothing. */
  unknownWmi?: string;
}
