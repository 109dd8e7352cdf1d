import { Link } from 'react-router-dom';
import { usePageTitle } from '../../components/usePageTitle';
import { ProductArt } from './ProductArt';
import { PRODUCTS } from './products';
import './site.css';

/** /products: Our Products (SPEC §2). */
export default function ProductsPage() {
  usePageTitle('Our Products');
  return (
    <div className="page site-page">
      <header className="page-header">
        <h1>Our Products</h1>
        <p className="muted lead">One data platform, shaped for each line of business.</p>
      </header>
      <div className="site-grid">
        {PRODUCTS.map((product) => (
          <article key={product.id} className="card site-card" aria-labelledby={`product-${product.id}`}>
            <ProductArt kind={product.id} label={product.title} />
            <p>
              <span className="tag">{product.tag}</span>{' '}
              {product.subProducts && <span className="tag badge-sub">Sub Products</span>}
            </p>
            <h2 id={`product-${product.id}`} className="card-title">{product.title}</h2>
            <p className="muted">{product.description}</p>
            <Link to={`/products/${product.id}`} className="btn btn-outline" aria-label={`Learn More about ${product.title}`}>
              Learn More
            </Link>
          </article>
        ))}
      </div>
      <section className="card" aria-labelledby="insights-title">
        <h2 id="insights-title" className="card-title">Data-driven insights</h2>
        <p>
          Every answer is built from public records you can check: FEMA&apos;s National Risk Index for 18 hazards, city
          business registries with NAICS 2022 codes, and published building records. Each result carries a receipt of
          the sources and versions used.
        </p>
      </section>
      <section className="card request-box">
        <h2 className="card-title">Not sure which product fits?</h2>
        <p>Tell us about your book of business and we will show you what PerilScope returns for it.</p>
        <Link to="/contact" className="btn btn-accent">Contact Us</Link>
      </section>
    </div>
  );
}
