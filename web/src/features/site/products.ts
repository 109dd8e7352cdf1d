/** The product catalogue (SPEC §3: static, built into the client). */
export interface SubProduct {
  id: string;
  title: string;
  description: string;
  tag: string;
}

export interface Product {
  id: 'commercial' | 'personal' | 'health';
  title: string;
  tag: string;
  description: string;
  longDescription: string;
  features: string[];
  subProducts?: SubProduct[];
}

export const LRO: SubProduct = {
  id: 'lro',
  title: 'Lessors Risk Only',
  tag: 'Location Analysis',
  description:
    'For buildings whose owner leases the space to others: see every tenant at the address, what they do by NAICS code, whether they still operate, and the natural hazard exposure of the location.',
};

export const PRODUCTS: Product[] = [
  {
    id: 'commercial',
    title: 'Commercial Property & Casualty',
    tag: 'Commercial',
    description: 'Occupancy, building and geo peril data for commercial risks, one address or a whole schedule.',
    longDescription:
      'Commercial underwriting starts with knowing who is in the building and what they do. PerilScope lists the businesses registered at an address with their NAICS 2022 codes and operating status, the building record where a city publishes one (year built, floors, floor area, use), and FEMA National Risk Index scores for 18 hazards in the county, with the three highest risks spelled out.',
    features: [
      'Occupants with NAICS 2022 codes and operating status',
      'Building details: year built, floors, gross floor area, largest use',
      'Scores for 18 natural hazards with a composite and the top three',
      'Batch CSV processing for schedules of thousands of locations',
      'CSV exports kept in your export history',
    ],
    subProducts: [LRO],
  },
  {
    id: 'personal',
    title: 'Personal Property & Casualty',
    tag: 'Personal',
    description: 'Natural hazard exposure for homes and personal lines portfolios.',
    longDescription:
      'For homeowners and personal lines, PerilScope scores the county of any US ZIP code against 18 natural hazards from the FEMA National Risk Index, from wildfire and hurricane to winter weather, so you can compare locations and spot concentrations across a book of business.',
    features: [
      'Scores for 18 natural hazards by address',
      'Composite score and the top three risks',
      'Batch scoring of a whole portfolio from a CSV file',
      'Not-applicable hazards shown as blank, never as zero',
    ],
  },
  {
    id: 'health',
    title: 'Life & Health',
    tag: 'Health',
    description: 'Location context for life and health portfolios: where members live and work, and the hazards there.',
    longDescription:
      'Life and health carriers use location to understand accumulation: many insured people in one place exposed to the same event. PerilScope gives the hazard profile of each address and the businesses operating there, so you can review concentrations of risk in group and individual portfolios.',
    features: [
      'Hazard profile for member and employer addresses',
      'Employer industry by NAICS code',
      'Portfolio-wide batch processing',
    ],
  },
];

export function findProduct(id: string | undefined): Product | undefined {
  return PRODUCTS.find((product) => product.id === id);
}

/** 'Commercial Property & Casualty — Lessors Risk Only' for ?product=commercial&subproduct=lro. */
export function productInterest(productId: string | null, subProductId: string | null): string | null {
  const product = findProduct(productId ?? undefined);
  if (!product) return null;
  const sub = product.subProducts?.find((item) => item.id === subProductId);
  return sub ? `${product.title} — ${sub.title}` : product.title;
}

export function contactLink(productId: string, subProductId?: string): string {
  const params = new URLSearchParams({ product: productId, ...(subProductId ? { subproduct: subProductId } : {}) });
  return `/contact?${params.toString()}`;
}
